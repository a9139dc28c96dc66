// VulkanQueue's entry points for benchmarks and tests: device timestamps, repeated recording,
// the copy shader and vkCmdCopyBuffer as bandwidth baselines, and canary corruption.
#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "dispatch.hpp"
#include "vk_layer_lock.hpp"
#include "vk_queue.hpp"

namespace gp::vk {

void VulkanQueue::set_timestamps(bool on) {
  CallGuard guard(ctx_.validation_enabled());
  if (on && !timestamps_) {
    if (ctx_.facts().timestamp_valid_bits == 0) throw Error("vulkan backend: the queue family has no timestamps");
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2;
    ctx_.check(vkCreateQueryPool(ctx_.device(), &qi, nullptr, &timestamps_), "vkCreateQueryPool", "");
  } else if (!on && timestamps_) {
    vkDestroyQueryPool(ctx_.device(), timestamps_, nullptr);
    timestamps_ = VK_NULL_HANDLE;
  }
}

void VulkanQueue::set_repeat(std::uint32_t n) {
  if (n == 0 || n > 64) throw Error("vulkan backend: repeat count must be 1..64");
  submit("set_repeat");  // the pool is replaced: nothing may be recorded from the old one
  CallGuard guard(ctx_.validation_enabled());
  create_descriptor_pool(std::max(kSetsPerSubmission, kMaxSetsPerCall * n));
  repeat_ = n;
  submit_each_call_ = true;
}

void VulkanQueue::copy_shader(const DeviceBuffer& src, DeviceBuffer& dst) {
  const VulkanBuffer& s = as_vulkan(src);
  VulkanBuffer& d = as_vulkan(dst);
  if (s.dtype() != d.dtype() || s.shape().numel() != d.shape().numel()) throw Error("copy_shader: buffers differ");
  if (s.data_bytes() > ctx_.facts().props.limits.maxStorageBufferRange)
    throw Error("copy_shader: " + std::to_string(s.data_bytes()) + " bytes exceed maxStorageBufferRange");
  const CopyPlan plan = flat_plan(s.shape().numel());
  run(
      "copy_shader",
      [&](Recorder& rec) {
        rec.writes(d);
        record_copy(rec, s.dtype(), s, d, plan);
      },
      {}, repeat_);
}

void VulkanQueue::copy_transfer(const DeviceBuffer& src, DeviceBuffer& dst) {
  const VulkanBuffer& s = as_vulkan(src);
  VulkanBuffer& d = as_vulkan(dst);
  if (s.data_bytes() != d.data_bytes()) throw Error("copy_transfer: buffers differ");
  run(
      "copy_transfer", {},
      [&](VkCommandBuffer cmd) {
        for (std::uint32_t r = 0; r < repeat_; ++r)
          record_transfer(cmd, s, d, s.data_offset(), d.data_offset(), s.data_bytes());
      },
      repeat_);
}

void VulkanQueue::corrupt_canary(DeviceBuffer& buffer, long offset, std::uint8_t value) {
  VulkanBuffer& b = as_vulkan(buffer);
  VkDeviceSize pos = b.canary_position_for_testing(offset);
  if (b.mapped()) {
    reinterpret_cast<std::uint8_t*>(b.mapped())[pos] = value;
    return;
  }
  // vkCmdUpdateBuffer writes whole words: the word must hold canary bytes only.
  VkDeviceSize word = pos / 4 * 4;
  for (VkDeviceSize p = word; p < word + 4; ++p) b.canary_position_for_testing(static_cast<long>(p - kCanaryBytes));
  std::uint32_t bits = kCanaryWord;
  std::memcpy(reinterpret_cast<std::uint8_t*>(&bits) + (pos - word), &value, 1);
  run("corrupt_canary", {}, [&](VkCommandBuffer cmd) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
    vkCmdUpdateBuffer(cmd, b.handle(), word, 4, &bits);
  });
}

}  // namespace gp::vk
