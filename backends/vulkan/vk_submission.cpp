// VulkanQueue's recording and submission: calls are recorded into the open command buffer and
// submitted together by the next download or finish() (vk_queue.hpp says when else).
#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "vk_errors.hpp"
#include "vk_layer_lock.hpp"
#include "vk_queue.hpp"

namespace gp::vk {

namespace {

constexpr VkDeviceSize kReadbackSlot = 2 * kCanaryBytes + 4;  // front + back canary (with padding)
constexpr std::uint64_t kFenceTimeoutNs = 120ull * 1000 * 1000 * 1000;

}  // namespace

void VulkanQueue::open(const std::string& case_id) {
  if (open_) return;
  ctx_.check(vkResetDescriptorPool(ctx_.device(), descriptors_, 0), "vkResetDescriptorPool", case_id);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  ctx_.check(vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer", case_id);
  open_ = true;
  sets_ = 0;
  if (timestamps_) {
    vkCmdResetQueryPool(cmd_, timestamps_, 0, 2);
    vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps_, 0);
  }
}

bool VulkanQueue::in_use(const VulkanBuffer& buffer) const {
  return buffer.pending_in() == this && std::find(used_.begin(), used_.end(), &buffer) != used_.end();
}

void VulkanQueue::use(const VulkanBuffer& buffer) {
  if (in_use(buffer)) return;
  used_.push_back(&buffer);
  const_cast<VulkanBuffer&>(buffer).set_pending_in(this);  // its destruction submits first
}

// The staged uploads, before anything recorded after them reads their buffers (the recorder's
// barrier precedes every dispatch; a transfer's precedes every copy).
void VulkanQueue::record_staged() {
  for (StagedUpload& u : staged_) {
    record_transfer(cmd_, *u.staging, *u.dst, u.from, u.to, u.bytes);
    used_.push_back(u.dst);  // pending in this queue already
  }
  staged_.clear();
}

void VulkanQueue::record(const std::string& case_id, const std::function<void(Recorder&)>& body,
                         std::span<const VulkanBuffer* const> uses, std::uint32_t reps) {
  CallGuard guard(ctx_.validation_enabled());
  ctx_.ensure_alive(case_id);
  if (open_ && sets_ + kMaxSetsPerCall * reps > set_capacity_) submit(case_id);
  open(case_id);
  record_staged();
  Recorder rec(*shared_, cmd_, descriptors_, *dummy_, case_id);
  // A call that fails half-recorded leaves valid commands on its own buffers: they run with the
  // calls recorded before it, and its scratch buffers live until then.
  auto keep = [&] {
    sets_ += rec.sets();
    for (const VulkanBuffer* b : rec.written()) written_.push_back({b, case_id});
    for (auto& s : rec.take_scratch()) in_flight_.push_back(std::move(s));
    for (const VulkanBuffer* b : uses) use(*b);
    last_case_ = case_id;
  };
  try {
    for (std::uint32_t r = 0; r < reps; ++r) body(rec);
  } catch (...) {
    keep();
    throw;
  }
  keep();
}

void VulkanQueue::throw_deferred_error() {
  if (!deferred_error_.empty()) throw Error(std::exchange(deferred_error_, {}));
}

void VulkanQueue::clear_recording() noexcept {
  if (open_) {
    vkEndCommandBuffer(cmd_);  // a submission that failed: leave the command buffer resettable
    vkResetCommandBuffer(cmd_, 0);
    open_ = false;
  }
  for (const VulkanBuffer* b : used_)
    if (b->pending_in() == this) const_cast<VulkanBuffer*>(b)->set_pending_in(nullptr);
  used_.clear();
  written_.clear();
  in_flight_.clear();
  if (staged_.empty()) staging_.reset();  // a staged upload's slice is still to be copied
  sets_ = 0;
  last_case_.clear();
}

void VulkanQueue::submit(const std::string& case_id, const std::function<void(VkCommandBuffer)>& transfers) {
  if (!pending() && !transfers) return;
  CallGuard guard(ctx_.validation_enabled());
  const std::string named = last_case_.empty() ? case_id : last_case_;
  struct Cleanup {
    VulkanQueue& q;
    ~Cleanup() { q.clear_recording(); }
  } cleanup{*this};
  ctx_.ensure_alive(named);
  VkDevice dev = ctx_.device();
  open(named);
  record_staged();
  if (transfers) transfers(cmd_);

  std::vector<const VulkanBuffer*> unmapped;
  for (const Written& w : written_)
    if (!w.buffer->mapped() && std::find(unmapped.begin(), unmapped.end(), w.buffer) == unmapped.end())
      unmapped.push_back(w.buffer);
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  if (!unmapped.empty()) {  // copy the canaries of device-local outputs to host memory
    auto words = static_cast<std::int64_t>(unmapped.size() * kReadbackSlot / 4);
    if (!readback_ || readback_->shape().numel() < words)  // kept: an allocation per submission costs
      readback_ =
          std::make_unique<VulkanBuffer>(shared_->ctx, DType::f32, Shape{words}, Placement::host_visible, named);
    mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
    for (std::size_t i = 0; i < unmapped.size(); ++i) {
      VkDeviceSize dst = readback_->data_offset() + i * kReadbackSlot;
      VkBufferCopy regions[2] = {
          {0, dst, kCanaryBytes},
          {unmapped[i]->back_canary_offset(), dst + kCanaryBytes, unmapped[i]->back_canary_bytes()}};
      vkCmdCopyBuffer(cmd_, unmapped[i]->handle(), readback_->handle(), 2, regions);
    }
  }
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;  // results are read through mapped memory
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  if (timestamps_) vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps_, 1);
  open_ = false;
  ctx_.check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer", named);
  ctx_.check(vkResetFences(dev, 1, &fence_), "vkResetFences", named);
  ctx_.submit(cmd_, fence_, named);
  VkResult r = vkWaitForFences(dev, 1, &fence_, VK_TRUE, kFenceTimeoutNs);
  if (r == VK_TIMEOUT) {
    ctx_.mark_lost("vkWaitForFences", "no completion within 120 s in case " + named);
    throw DeviceLost("vkWaitForFences", "VK_TIMEOUT", named, "the device did not finish in 120 s");
  }
  ctx_.check(r, "vkWaitForFences", named);

  if (timestamps_) {
    std::uint64_t t[2] = {0, 0};
    ctx_.check(vkGetQueryPoolResults(dev, timestamps_, 0, 2, sizeof t, t, sizeof(std::uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
               "vkGetQueryPoolResults", named);
    std::uint32_t bits = ctx_.facts().timestamp_valid_bits;
    std::uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    std::uint64_t ticks = ((t[1] & mask) - (t[0] & mask)) & mask;
    const double seconds = static_cast<double>(ticks) * ctx_.facts().props.limits.timestampPeriod * 1e-9;
    last_device_seconds_ = seconds / static_cast<double>(repeat_);
    device_seconds_ += seconds;
  }
  check_canaries(unmapped);
}

void VulkanQueue::check_canaries(const std::vector<const VulkanBuffer*>& unmapped) {
  std::vector<const VulkanBuffer*> seen;
  for (const Written& w : written_) {
    const VulkanBuffer* b = w.buffer;
    if (std::find(seen.begin(), seen.end(), b) != seen.end()) continue;
    seen.push_back(b);
    std::optional<std::string> damage;
    if (b->mapped()) {
      damage = const_cast<VulkanBuffer*>(b)->check_mapped_canaries();
    } else {
      auto i = static_cast<std::size_t>(std::find(unmapped.begin(), unmapped.end(), b) - unmapped.begin());
      auto* base =
          reinterpret_cast<const std::uint8_t*>(readback_->mapped() + readback_->data_offset()) + i * kReadbackSlot;
      damage = b->describe_canary_damage(base, base + kCanaryBytes);
      if (damage) const_cast<VulkanBuffer*>(b)->disarm_canaries();  // reported once
    }
    // The last call that wrote the buffer is named: the violation is one of its writes or earlier.
    if (damage) {
      std::string id = w.case_id;
      for (const Written& later : written_)
        if (later.buffer == b) id = later.case_id;
      shared_->add_canary_violation("[" + id + "] " + *damage);
    }
  }
}

void VulkanQueue::run(const std::string& case_id, const std::function<void(Recorder&)>& body,
                      const std::function<void(VkCommandBuffer)>& transfers, std::uint32_t reps) {
  if (body) record(case_id, body, {}, reps);
  submit(case_id, transfers);
}

void VulkanQueue::forget(const VulkanBuffer& buffer) noexcept {
  std::erase_if(staged_, [&](const StagedUpload& u) { return u.dst == &buffer; });
  if (!in_use(buffer)) return;
  try {  // a recorded call uses it: run them before its memory goes back to the pool
    submit("a buffer destroyed with work pending");
  } catch (const std::exception& e) {
    deferred_error_ = e.what();
  } catch (...) {
    deferred_error_ = "vulkan backend: a submission failed while a buffer was destroyed";
  }
}

void VulkanQueue::drop_staged() noexcept {
  for (StagedUpload& u : staged_) u.dst->set_pending_in(nullptr);
  staged_.clear();
}

}  // namespace gp::vk
