// gp::Queue for Vulkan. Each VulkanQueue owns its command pool, one command buffer, a
// descriptor pool, a fence, a dummy buffer and (when asked) a timestamp query pool; none of
// them is touched by another queue, so the only cross-thread synchronisation is the VkQueue
// submission mutex in Context. forward() and backward() record every dispatch of the call into
// the one command buffer and submit it once, then wait for the fence: work of a queue is done
// when the call returns.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>
#include <memory>

#include "backends/backend.hpp"
#include "vk_memory.hpp"
#include "vk_recorder.hpp"
#include "vk_shared.hpp"

namespace gp::vk {

class VulkanQueue final : public Queue {
 public:
  explicit VulkanQueue(std::shared_ptr<Shared> shared);
  ~VulkanQueue() override;

  void upload(DeviceBuffer& dst, const HostTensor& src) override;
  HostTensor download(const DeviceBuffer& src) override;
  void forward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, DeviceBuffer& out) override;
  void backward(const OpCall& call, std::span<const DeviceBuffer* const> inputs, const DeviceBuffer& out,
                const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) override;
  void finish() override;

  void set_timestamps(bool on);
  double last_device_seconds() const { return last_device_seconds_; }
  void copy_shader(const DeviceBuffer& src, DeviceBuffer& dst);

 private:
  // Records `body` into the command buffer, submits once and waits; then reads timestamps and
  // checks the canaries of every written buffer.
  void run(const std::string& case_id, const std::function<void(Recorder&)>& body,
           const std::function<void(VkCommandBuffer)>& transfers = {});
  void release() noexcept;
  void staged_copy(const VulkanBuffer& from, const VulkanBuffer& to, VkDeviceSize from_offset, VkDeviceSize to_offset,
                   VkDeviceSize bytes, const std::string& case_id);

  std::shared_ptr<Shared> shared_;
  Context& ctx_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool timestamps_ = VK_NULL_HANDLE;
  std::unique_ptr<VulkanBuffer> dummy_;
  double last_device_seconds_ = 0;
};

}  // namespace gp::vk
