// gp::Queue for Vulkan. Each VulkanQueue owns its command pool, one command buffer, a
// descriptor pool, a fence, a dummy buffer and a timestamp query pool (where the context times
// submissions, Context::time_submissions: every submission is timed); none of
// them is touched by another queue, so the only cross-thread synchronisation is the VkQueue
// submission mutex in Context. forward() and backward() record every dispatch of the call into
// the one command buffer and submit it once, then wait for the fence: work of a queue is done
// when the call returns. An upload into a device-local buffer fills a staging buffer at once
// and records its copy into the next submission (a call, a download or finish()): the inputs
// and poisoned outputs of a check travel with its kernel instead of a submission and a fence
// wait each. A buffer destroyed first drops its pending copy (PendingUploads).
#pragma once

#include <vulkan/vulkan.h>

#include <functional>
#include <memory>
#include <vector>

#include "backends/backend.hpp"
#include "vk_memory.hpp"
#include "vk_recorder.hpp"
#include "vk_shared.hpp"

namespace gp::vk {

// vkCmdCopyBuffer of `bytes`, after a barrier against everything recorded before it.
void record_transfer(VkCommandBuffer cmd, const VulkanBuffer& from, const VulkanBuffer& to, VkDeviceSize from_offset,
                     VkDeviceSize to_offset, VkDeviceSize bytes);

class VulkanQueue final : public Queue, private PendingUploads {
 public:
  explicit VulkanQueue(std::shared_ptr<Shared> shared);
  ~VulkanQueue() override;

  void upload(DeviceBuffer& dst, const HostTensor& src) override;
  HostTensor download(const DeviceBuffer& src) override;
  void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) override;
  void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override;
  void finish() override;
  std::optional<double> take_device_seconds() noexcept override;

  void set_timestamps(bool on);
  // Benchmarks: record each forward/backward/copy `n` times into its one command buffer (with
  // the usual barriers between), so that last_device_seconds() is a steady-state mean per call.
  void set_repeat(std::uint32_t n);
  double last_device_seconds() const { return last_device_seconds_; }
  void copy_shader(const DeviceBuffer& src, DeviceBuffer& dst);
  void copy_transfer(const DeviceBuffer& src, DeviceBuffer& dst);  // vkCmdCopyBuffer, for comparison
  // Test hook: sets one canary byte as an out-of-bounds write would (through the mapping, or
  // with vkCmdUpdateBuffer of its 4-byte word on device-local memory).
  void corrupt_canary(DeviceBuffer& buffer, long offset, std::uint8_t value);

 private:
  static constexpr std::uint32_t kMaxSetsPerCall = 64;  // descriptor sets of one recorded call
  // Records `body` (`reps` times) into the command buffer, submits once and waits; then reads timestamps and
  // checks the canaries of every written buffer.
  void run(const std::string& case_id, const std::function<void(Recorder&)>& body,
           const std::function<void(VkCommandBuffer)>& transfers = {}, std::uint32_t reps = 1);
  void create_descriptor_pool(std::uint32_t sets);
  void release() noexcept;
  void staged_copy(const VulkanBuffer& from, const VulkanBuffer& to, VkDeviceSize from_offset, VkDeviceSize to_offset,
                   VkDeviceSize bytes, const std::string& case_id);

  // An upload not submitted yet: the staging buffer it copies from and where to.
  struct StagedUpload {
    std::unique_ptr<VulkanBuffer> staging;
    VulkanBuffer* dst;
    VkDeviceSize from, to, bytes;
  };
  void forget(const VulkanBuffer& buffer) noexcept override;
  void drop_staged() noexcept;

  std::shared_ptr<Shared> shared_;
  Context& ctx_;
  std::vector<StagedUpload> staged_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool timestamps_ = VK_NULL_HANDLE;
  std::unique_ptr<VulkanBuffer> dummy_;
  std::unique_ptr<VulkanBuffer> readback_;  // canaries of device-local outputs, host-visible
  double last_device_seconds_ = 0;
  double device_seconds_ = 0;  // every submission's, since take_device_seconds()
  std::uint32_t repeat_ = 1;
};

}  // namespace gp::vk
