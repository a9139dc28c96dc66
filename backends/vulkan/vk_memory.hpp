// Device buffers with canary regions. Layout of every allocation:
//   [kCanaryBytes of kCanaryByte][tensor data][0-3 padding bytes + kCanaryBytes of kCanaryByte]
// (the padding keeps sizes multiples of 4, as vkCmdFillBuffer needs, and is checked too).
// Shaders see only the data range (descriptor offset kCanaryBytes, which also satisfies any
// minStorageBufferOffsetAlignment, whose maximum is 256). After each submit that writes a buffer
// the canaries are compared with the pattern; a difference is an out-of-bounds write.
//
// Memory placement: on CPU and integrated devices (lavapipe) every buffer is host-visible and
// coherent, mapped once for its lifetime. On discrete GPUs (the NVIDIA H100) buffers are
// device-local and not mapped: uploads and downloads go through a host-visible staging buffer
// and a copy in the queue's command buffer, and canaries are read back by copies recorded
// after the kernels, so kernels read and write at full device bandwidth. If device-local memory
// runs out, a host-visible buffer is tried before reporting gp::OutOfMemory. GP_VK_STAGING=1
// makes every tensor buffer unmapped even where memory is host-visible, so the staging and
// canary-readback paths of discrete GPUs can be tested on lavapipe.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "vk_context.hpp"

namespace gp::vk {

inline constexpr VkDeviceSize kCanaryBytes = 256;
inline constexpr std::uint8_t kCanaryByte = 0xA5;
inline constexpr std::uint32_t kCanaryWord = 0xA5A5A5A5u;

enum class Placement { device_preferred, host_visible };

class VulkanBuffer;
// What holds an upload into a buffer that it has not submitted yet (a VulkanQueue defers staged
// uploads into its next submission). A buffer destroyed first makes it drop the upload.
class PendingUploads {
 public:
  virtual void forget(const VulkanBuffer& buffer) noexcept = 0;

 protected:
  ~PendingUploads() = default;
};

class VulkanBuffer final : public DeviceBuffer {
 public:
  // Throws gp::OutOfMemory when no memory type can hold it.
  VulkanBuffer(std::shared_ptr<Context> ctx, DType dtype, Shape shape,
               Placement placement = Placement::device_preferred, const std::string& case_id = {});
  ~VulkanBuffer() override;

  VkBuffer handle() const { return buffer_; }
  VkDeviceSize data_offset() const { return kCanaryBytes; }
  VkDeviceSize data_bytes() const { return data_bytes_; }  // bytes() rounded up to 4: the bound range
  VkDeviceSize back_canary_offset() const { return kCanaryBytes + bytes(); }
  VkDeviceSize back_canary_bytes() const { return total_bytes() - back_canary_offset(); }
  VkDeviceSize total_bytes() const { return data_bytes_ + 2 * kCanaryBytes; }
  std::byte* mapped() const { return mapped_; }  // whole allocation; nullptr when device-local only
  std::uint64_t id() const { return id_; }

  // Canary state for buffers that are not mapped: the pattern is written by a fill recorded in
  // the first command buffer that uses the buffer.
  bool canaries_armed() const { return armed_.load(); }
  void set_canaries_armed() { armed_.store(true); }
  void disarm_canaries() { armed_.store(false); }  // the next call that writes it refills them

  // Compares both canaries (host copies: kCanaryBytes, back_canary_bytes()) with the pattern; returns
  // a description with byte offsets when they differ.
  std::optional<std::string> describe_canary_damage(const std::uint8_t* front, const std::uint8_t* back) const;
  // Mapped buffers: checks in place and re-arms damaged canaries so one bug is reported once.
  std::optional<std::string> check_mapped_canaries();

  // The queue whose next submission copies an upload into this buffer; null when none.
  PendingUploads* pending_in() const { return pending_in_; }
  void set_pending_in(PendingUploads* queue) { pending_in_ = queue; }

  // Test hook: the position in the buffer of canary byte `offset` (relative to the data start),
  // or an Error if that byte is not a canary byte.
  VkDeviceSize canary_position_for_testing(long offset) const;

 private:
  std::shared_ptr<Context> ctx_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::uint32_t memory_type_ = 0;
  VkDeviceSize memory_size_ = 0;
  std::byte* mapped_ = nullptr;
  VkDeviceSize data_bytes_ = 0;
  std::uint64_t id_ = 0;
  std::atomic<bool> armed_{false};
  PendingUploads* pending_in_ = nullptr;  // used by the one queue that uses the buffer
};

// Memory type indices to try for a buffer, best first: on discrete GPUs device-local memory the
// host cannot see for tensors, and system memory the CPU caches for what it writes and reads
// (staging, canary read-back); elsewhere host-visible memory, device-local first.
std::vector<std::uint32_t> candidate_memory_types(const VkPhysicalDeviceMemoryProperties& props,
                                                  VkPhysicalDeviceType type, std::uint32_t allowed,
                                                  Placement placement);

VulkanBuffer& as_vulkan(DeviceBuffer& b);
const VulkanBuffer& as_vulkan(const DeviceBuffer& b);

}  // namespace gp::vk
