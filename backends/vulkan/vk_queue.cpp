#include "vk_queue.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "core/error.hpp"
#include "dispatch.hpp"
#include "vk_errors.hpp"
#include "vk_layer_lock.hpp"

namespace gp::vk {

namespace {

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

void record_forward(Recorder& rec, const OpCall& call, Inputs given, VulkanBuffer& out) {
  const std::vector<const VulkanBuffer*> contiguous = record_gather_strided(rec, call, given);
  const Inputs in(contiguous);
  if (rec.kernel_files()) return forward_kernel_files(rec, call, in, out);
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

void record_backward(Recorder& rec, const OpCall& call, Inputs given, const VulkanBuffer& out, const VulkanBuffer& dout,
                     Grads grads) {
  const std::vector<const VulkanBuffer*> contiguous = record_gather_strided(rec, call, given);
  const Inputs in(contiguous);
  if (rec.kernel_files()) return backward_kernel_files(rec, call, in, out, dout, grads);
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

VulkanQueue::VulkanQueue(std::shared_ptr<Shared> shared)
    : shared_(std::move(shared)), ctx_(*shared_->ctx), staging_(shared_->ctx) {
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
    create_descriptor_pool(kSetsPerSubmission);
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

void VulkanQueue::release() noexcept {
  if (open_) {  // what was recorded runs, as if each call had been submitted on its own
    try {
      submit("queue destroyed");
    } catch (...) {  // never throw from a destructor; the device error is the caller's to see elsewhere
    }
  }
  clear_recording();
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
  set_capacity_ = sets;
}

void VulkanQueue::upload(DeviceBuffer& dst, const HostTensor& src) {
  VulkanBuffer& d = as_vulkan(dst);
  check_buffer(d, src.dtype(), src.shape(), "upload destination", "upload");
  ctx_.ensure_alive("upload");
  if (d.mapped()) {
    if (in_use(d)) submit("upload");  // a recorded call reads or writes it: that comes first
    std::memcpy(d.mapped() + d.data_offset(), src.data(), src.bytes());
    return;
  }
  // The slice holds the whole buffer's layout, canaries around the data, and the copy takes the
  // canaries along the first time (afterwards the data and its padding, which is canary too).
  const StagingArena::Slice slice = staging_.take(d.total_bytes(), "upload");
  std::memset(slice.host, kCanaryByte, d.total_bytes());
  std::memcpy(slice.host + d.data_offset(), src.data(), src.bytes());
  if (d.canaries_armed()) {
    staged_.push_back({slice.buffer, &d, slice.offset + d.data_offset(), d.data_offset(), d.data_bytes()});
  } else {
    staged_.push_back({slice.buffer, &d, slice.offset, 0, d.total_bytes()});
    d.set_canaries_armed();
  }
  d.set_pending_in(this);
}

HostTensor VulkanQueue::download(const DeviceBuffer& src) {
  const DeviceBuffer* one[] = {&src};
  return std::move(download_all(one).front());
}

std::vector<HostTensor> VulkanQueue::download_all(std::span<const DeviceBuffer* const> src) {
  ctx_.ensure_alive("download");
  throw_deferred_error();
  // The copies of device-local buffers land in staging slices, read after the submission.
  std::vector<std::optional<StagingArena::Slice>> staging(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) {
    const VulkanBuffer& s = as_vulkan(*src[i]);
    if (!s.mapped()) staging[i] = staging_.take(s.data_bytes(), "download");
  }
  auto copies = [&](VkCommandBuffer cmd) {
    for (std::size_t i = 0; i < src.size(); ++i)
      if (staging[i]) {
        const VulkanBuffer& s = as_vulkan(*src[i]);
        record_transfer(cmd, s, *staging[i]->buffer, s.data_offset(), staging[i]->offset, s.data_bytes());
      }
  };
  const bool any_copy = std::any_of(staging.begin(), staging.end(), [](const auto& b) { return b.has_value(); });
  submit("download", any_copy ? std::function<void(VkCommandBuffer)>(copies) : nullptr);
  std::vector<HostTensor> out;
  out.reserve(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) {
    const VulkanBuffer& s = as_vulkan(*src[i]);
    const std::byte* from = staging[i] ? staging[i]->host : s.mapped() + s.data_offset();
    HostTensor& t = out.emplace_back(s.dtype(), s.shape());
    std::memcpy(t.data(), from, t.bytes());
  }
  return out;
}

void VulkanQueue::forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) {
  if (inputs.size() != call.input_shapes.size())
    throw Error("vulkan backend [" + call.case_id + "]: wrong number of inputs");
  std::vector<const VulkanBuffer*> in;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_buffer(*inputs[i], call.input_dtypes[i], input_buffer_shape(call, i), "input", call.case_id);
    in.push_back(&as_vulkan(*inputs[i]));
  }
  check_buffer(out, call.dtype, call.output_shape, "output", call.case_id);
  VulkanBuffer& o = as_vulkan(out);
  std::vector<const VulkanBuffer*> uses = in;
  uses.push_back(&o);
  record(
      call.case_id,
      [&](Recorder& rec) {
        rec.writes(o);
        record_forward(rec, call, in, o);
      },
      uses, repeat_);
  if (submit_each_call_) submit(call.case_id);
}

bool VulkanQueue::arithmetic_probe(DeviceBuffer& out, int steps) {
  const std::string id = "arithmetic probe";
  VulkanBuffer& o = as_vulkan(out);
  const VulkanBuffer* uses[] = {&o};
  record(
      id,
      [&](Recorder& rec) {
        rec.writes(o);
        record_arithmetic_probe(rec, o.dtype(), o, static_cast<std::uint32_t>(steps));
      },
      uses);
  if (submit_each_call_) submit(id);
  return true;
}

void VulkanQueue::backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                           const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  if (inputs.size() != call.input_shapes.size() || grads.size() != inputs.size())
    throw Error("vulkan backend [" + call.case_id + "]: wrong number of inputs or gradients");
  std::vector<const VulkanBuffer*> in;
  std::vector<VulkanBuffer*> g(grads.size(), nullptr);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_buffer(*inputs[i], call.input_dtypes[i], input_buffer_shape(call, i), "input", call.case_id);
    in.push_back(&as_vulkan(*inputs[i]));
    if (grads[i]) {
      check_buffer(*grads[i], call.dtype, call.input_shapes[i], "gradient", call.case_id);
      g[i] = &as_vulkan(*grads[i]);
    }
  }
  check_buffer(out, call.dtype, call.output_shape, "forward output", call.case_id);
  check_buffer(dout, call.dtype, call.output_shape, "output gradient", call.case_id);
  std::vector<const VulkanBuffer*> uses = in;
  uses.push_back(&as_vulkan(out));
  uses.push_back(&as_vulkan(dout));
  for (auto* b : g)
    if (b) uses.push_back(b);
  record(
      call.case_id,
      [&](Recorder& rec) {
        for (auto* b : g)
          if (b) rec.writes(*b);
        record_backward(rec, call, in, as_vulkan(out), as_vulkan(dout), g);
      },
      uses, repeat_);
  if (submit_each_call_) submit(call.case_id);
}

std::optional<double> VulkanQueue::take_device_seconds() noexcept {
  if (!timestamps_) return std::nullopt;
  return std::exchange(device_seconds_, 0.0);
}

void VulkanQueue::finish() {
  ctx_.ensure_alive("finish");
  throw_deferred_error();
  submit("finish");  // nothing when nothing was recorded or staged
}

}  // namespace gp::vk
