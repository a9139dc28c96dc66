#include "vk_queue.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/error.hpp"
#include "dispatch.hpp"
#include "vk_errors.hpp"
#include "vk_layer_lock.hpp"

namespace gp::vk {

namespace {

constexpr VkDeviceSize kReadbackSlot = 2 * kCanaryBytes + 4;  // front + back canary (with padding)
constexpr std::uint64_t kFenceTimeoutNs = 120ull * 1000 * 1000 * 1000;

void check_buffer(const DeviceBuffer& b, DType dtype, const Shape& shape, const char* what,
                  const std::string& case_id) {
  if (b.dtype() != dtype || b.shape().numel() != shape.numel())
    throw Error("vulkan backend [" + case_id + "]: " + what + " is " + std::string(dtype_name(b.dtype())) + " " +
                b.shape().to_string() + ", the call needs " + std::string(dtype_name(dtype)) + " " + shape.to_string());
}

}  // namespace

// vkCmdCopyBuffer after everything recorded before it.
void record_transfer(VkCommandBuffer cmd, const VulkanBuffer& from, const VulkanBuffer& to, VkDeviceSize from_offset,
                     VkDeviceSize to_offset, VkDeviceSize bytes) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cmd, stages, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  VkBufferCopy region{from_offset, to_offset, bytes};
  vkCmdCopyBuffer(cmd, from.handle(), to.handle(), 1, &region);
}

void record_forward(Recorder& rec, const OpCall& call, Inputs in, VulkanBuffer& out) {
  switch (op_family(call.kind)) {
    case OpFamily::unary:
    case OpFamily::binary:
      return forward_elementwise(rec, call, in, out);
    case OpFamily::reduction:
    case OpFamily::rowwise:
    case OpFamily::loss:
      return forward_rowwise(rec, call, in, out);
    case OpFamily::linalg:
      return forward_linalg(rec, call, in, out);
    case OpFamily::layout:
      return forward_layout(rec, call, in, out);
    case OpFamily::optimizer:
      return forward_optimizer(rec, call, in, out);
  }
}

void record_backward(Recorder& rec, const OpCall& call, Inputs in, const VulkanBuffer& out, const VulkanBuffer& dout,
                     Grads grads) {
  switch (op_family(call.kind)) {
    case OpFamily::unary:
    case OpFamily::binary:
      return backward_elementwise(rec, call, in, dout, grads);
    case OpFamily::reduction:
    case OpFamily::rowwise:
    case OpFamily::loss:
      return backward_rowwise(rec, call, in, out, dout, grads);
    case OpFamily::linalg:
      return backward_linalg(rec, call, in, out, dout, grads);
    case OpFamily::layout:
      return backward_layout(rec, call, in, dout, grads);
    case OpFamily::optimizer:
      return backward_optimizer(call, grads);
  }
}

VulkanQueue::VulkanQueue(std::shared_ptr<Shared> shared) : shared_(std::move(shared)), ctx_(*shared_->ctx) {
  CallGuard guard(ctx_.validation_enabled());
  VkDevice dev = ctx_.device();
  try {
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = ctx_.facts().queue_family;
    ctx_.check(vkCreateCommandPool(dev, &pi, nullptr, &pool_), "vkCreateCommandPool", "");
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    ctx_.check(vkAllocateCommandBuffers(dev, &ai, &cmd_), "vkAllocateCommandBuffers", "");
    create_descriptor_pool(kMaxSetsPerCall);
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    ctx_.check(vkCreateFence(dev, &fi, nullptr, &fence_), "vkCreateFence", "");
    dummy_ = std::make_unique<VulkanBuffer>(shared_->ctx, DType::f32, Shape{64}, Placement::host_visible);
    if (ctx_.time_submissions()) {  // every submission timed: the run's device time
      VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
      qi.queryCount = 2;
      ctx_.check(vkCreateQueryPool(dev, &qi, nullptr, &timestamps_), "vkCreateQueryPool", "");
    }
  } catch (...) {
    release();
    throw;
  }
}

VulkanQueue::~VulkanQueue() { release(); }

void VulkanQueue::forget(const VulkanBuffer& buffer) noexcept {
  std::erase_if(staged_, [&](const StagedUpload& u) { return u.dst == &buffer; });
}

void VulkanQueue::drop_staged() noexcept {
  for (StagedUpload& u : staged_) u.dst->set_pending_in(nullptr);
  staged_.clear();
}

void VulkanQueue::release() noexcept {
  drop_staged();
  CallGuard guard(ctx_.validation_enabled());
  VkDevice dev = ctx_.device();
  dummy_.reset();
  readback_.reset();
  if (timestamps_) vkDestroyQueryPool(dev, timestamps_, nullptr);
  if (fence_) vkDestroyFence(dev, fence_, nullptr);
  if (descriptors_) vkDestroyDescriptorPool(dev, descriptors_, nullptr);
  if (pool_) vkDestroyCommandPool(dev, pool_, nullptr);  // frees cmd_
  timestamps_ = VK_NULL_HANDLE;
  fence_ = VK_NULL_HANDLE;
  descriptors_ = VK_NULL_HANDLE;
  pool_ = VK_NULL_HANDLE;
}

void VulkanQueue::create_descriptor_pool(std::uint32_t sets) {
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * kMaxBindings};
  VkDescriptorPoolCreateInfo di{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  di.maxSets = sets;
  di.poolSizeCount = 1;
  di.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  ctx_.check(vkCreateDescriptorPool(ctx_.device(), &di, nullptr, &pool), "vkCreateDescriptorPool", "");
  if (descriptors_) vkDestroyDescriptorPool(ctx_.device(), descriptors_, nullptr);
  descriptors_ = pool;
}

void VulkanQueue::run(const std::string& case_id, const std::function<void(Recorder&)>& body,
                      const std::function<void(VkCommandBuffer)>& transfers, std::uint32_t reps) {
  CallGuard guard(ctx_.validation_enabled());
  ctx_.ensure_alive(case_id);
  VkDevice dev = ctx_.device();
  ctx_.check(vkResetDescriptorPool(dev, descriptors_, 0), "vkResetDescriptorPool", case_id);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  ctx_.check(vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer", case_id);

  Recorder rec(*shared_, cmd_, descriptors_, *dummy_, case_id);
  std::vector<const VulkanBuffer*> unmapped;
  try {
    // The uploads since the last submission, before anything that reads them (the recorder's
    // barrier precedes every dispatch; a transfer's precedes every copy).
    for (const StagedUpload& u : staged_) record_transfer(cmd_, *u.staging, *u.dst, u.from, u.to, u.bytes);
    if (timestamps_) {
      vkCmdResetQueryPool(cmd_, timestamps_, 0, 2);
      vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps_, 0);
    }
    if (body)
      for (std::uint32_t r = 0; r < reps; ++r) body(rec);
    if (transfers) transfers(cmd_);

    for (const VulkanBuffer* b : rec.written())
      if (!b->mapped() && std::find(unmapped.begin(), unmapped.end(), b) == unmapped.end()) unmapped.push_back(b);
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    if (!unmapped.empty()) {  // copy the canaries of device-local outputs to host memory
      auto words = static_cast<std::int64_t>(unmapped.size() * kReadbackSlot / 4);
      if (!readback_ || readback_->shape().numel() < words)  // kept: an allocation per call costs
        readback_ =
            std::make_unique<VulkanBuffer>(shared_->ctx, DType::f32, Shape{words}, Placement::host_visible, case_id);
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
  } catch (...) {
    vkEndCommandBuffer(cmd_);  // leave the command buffer resettable for the next call
    vkResetCommandBuffer(cmd_, 0);
    throw;
  }
  ctx_.check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer", case_id);
  ctx_.check(vkResetFences(dev, 1, &fence_), "vkResetFences", case_id);
  ctx_.submit(cmd_, fence_, case_id);
  VkResult r = vkWaitForFences(dev, 1, &fence_, VK_TRUE, kFenceTimeoutNs);
  if (r == VK_TIMEOUT) {
    ctx_.mark_lost("vkWaitForFences", "no completion within 120 s in case " + case_id);
    throw DeviceLost("vkWaitForFences", "VK_TIMEOUT", case_id, "the device did not finish in 120 s");
  }
  ctx_.check(r, "vkWaitForFences", case_id);
  drop_staged();  // copied

  if (timestamps_) {
    std::uint64_t t[2] = {0, 0};
    ctx_.check(vkGetQueryPoolResults(dev, timestamps_, 0, 2, sizeof t, t, sizeof(std::uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
               "vkGetQueryPoolResults", case_id);
    std::uint32_t bits = ctx_.facts().timestamp_valid_bits;
    std::uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    std::uint64_t ticks = ((t[1] & mask) - (t[0] & mask)) & mask;
    const double seconds = static_cast<double>(ticks) * ctx_.facts().props.limits.timestampPeriod * 1e-9;
    last_device_seconds_ = seconds / static_cast<double>(reps);
    device_seconds_ += seconds;
  }

  std::vector<const VulkanBuffer*> seen;
  for (const VulkanBuffer* b : rec.written()) {
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
    if (damage) shared_->add_canary_violation("[" + case_id + "] " + *damage);
  }
}

void VulkanQueue::staged_copy(const VulkanBuffer& from, const VulkanBuffer& to, VkDeviceSize from_offset,
                              VkDeviceSize to_offset, VkDeviceSize bytes, const std::string& case_id) {
  run(case_id, {}, [&](VkCommandBuffer cmd) { record_transfer(cmd, from, to, from_offset, to_offset, bytes); });
}

void VulkanQueue::upload(DeviceBuffer& dst, const HostTensor& src) {
  VulkanBuffer& d = as_vulkan(dst);
  check_buffer(d, src.dtype(), src.shape(), "upload destination", "upload");
  ctx_.ensure_alive("upload");
  if (d.mapped()) {
    std::memcpy(d.mapped() + d.data_offset(), src.data(), src.bytes());
    return;
  }
  auto staging = std::make_unique<VulkanBuffer>(shared_->ctx, d.dtype(), d.shape(), Placement::host_visible, "upload");
  std::memcpy(staging->mapped() + staging->data_offset(), src.data(), src.bytes());
  const VkDeviceSize from = staging->data_offset(), to = d.data_offset(), bytes = d.data_bytes();
  if (d.canaries_armed()) {
    staged_.push_back({std::move(staging), &d, from, to, bytes});
  } else {  // the staging buffer's canaries carry the pattern: copy them too
    staged_.push_back({std::move(staging), &d, 0, 0, d.total_bytes()});
    d.set_canaries_armed();
  }
  d.set_pending_in(this);
}

HostTensor VulkanQueue::download(const DeviceBuffer& src) {
  const VulkanBuffer& s = as_vulkan(src);
  ctx_.ensure_alive("download");
  HostTensor out(s.dtype(), s.shape());
  if (s.mapped()) {
    std::memcpy(out.data(), s.mapped() + s.data_offset(), out.bytes());
    return out;
  }
  VulkanBuffer staging(shared_->ctx, s.dtype(), s.shape(), Placement::host_visible, "download");
  staged_copy(s, staging, s.data_offset(), staging.data_offset(), s.data_bytes(), "download");
  std::memcpy(out.data(), staging.mapped() + staging.data_offset(), out.bytes());
  return out;
}

void VulkanQueue::forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) {
  if (inputs.size() != call.input_shapes.size())
    throw Error("vulkan backend [" + call.case_id + "]: wrong number of inputs");
  std::vector<const VulkanBuffer*> in;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_buffer(*inputs[i], call.input_dtypes[i], call.input_shapes[i], "input", call.case_id);
    in.push_back(&as_vulkan(*inputs[i]));
  }
  check_buffer(out, call.dtype, call.output_shape, "output", call.case_id);
  VulkanBuffer& o = as_vulkan(out);
  run(
      call.case_id,
      [&](Recorder& rec) {
        rec.writes(o);
        record_forward(rec, call, in, o);
      },
      {}, repeat_);
}

void VulkanQueue::backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                           const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  if (inputs.size() != call.input_shapes.size() || grads.size() != inputs.size())
    throw Error("vulkan backend [" + call.case_id + "]: wrong number of inputs or gradients");
  std::vector<const VulkanBuffer*> in;
  std::vector<VulkanBuffer*> g(grads.size(), nullptr);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_buffer(*inputs[i], call.input_dtypes[i], call.input_shapes[i], "input", call.case_id);
    in.push_back(&as_vulkan(*inputs[i]));
    if (grads[i]) {
      check_buffer(*grads[i], call.dtype, call.input_shapes[i], "gradient", call.case_id);
      g[i] = &as_vulkan(*grads[i]);
    }
  }
  check_buffer(out, call.dtype, call.output_shape, "forward output", call.case_id);
  check_buffer(dout, call.dtype, call.output_shape, "output gradient", call.case_id);
  run(
      call.case_id,
      [&](Recorder& rec) {
        for (auto* b : g)
          if (b) rec.writes(*b);
        record_backward(rec, call, in, as_vulkan(out), as_vulkan(dout), g);
      },
      {}, repeat_);
}

std::optional<double> VulkanQueue::take_device_seconds() noexcept {
  if (!timestamps_) return std::nullopt;
  return std::exchange(device_seconds_, 0.0);
}

void VulkanQueue::finish() {
  ctx_.ensure_alive("finish");
  if (!staged_.empty()) run("finish", {});  // every call already waited for its fence; uploads wait
}

}  // namespace gp::vk
