// Device memory kept for reuse. A model's graph run allocates and frees every tensor buffer, and
// each upload and download a staging buffer: on NVIDIA's driver vkAllocateMemory / vkFreeMemory
// are slow and serialised across threads (an H200 host spent 57.6 s in the Vulkan device calls of
// the 84 models at -j 1, OpenCL 4.6 s, and four threads or sixteen took the same 40 s). A freed
// buffer's memory goes back here, kept with its mapping, and the next buffer of the same memory
// type and size takes it. Bounded: beyond the cap memory is freed at once; an allocation that
// runs out of memory frees everything kept and tries again.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

namespace gp::vk {

class MemoryPool {
 public:
  struct Block {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    std::byte* mapped = nullptr;  // persistent mapping, or null
  };
  MemoryPool(VkDevice device, VkDeviceSize cap_bytes) : device_(device), cap_(cap_bytes) {}
  ~MemoryPool() { release_all(); }  // before the device goes
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // A kept block of this memory type and size, mapped or not as asked.
  std::optional<Block> take(std::uint32_t type, VkDeviceSize size, bool mapped);
  // Keeps the block for a later take(), or frees it when the pool is full.
  void give(std::uint32_t type, VkDeviceSize size, Block block);
  void release_all();

 private:
  using Key = std::tuple<std::uint32_t, VkDeviceSize, bool>;
  VkDevice device_;
  VkDeviceSize cap_;
  std::mutex mutex_;
  std::map<Key, std::vector<Block>> kept_;
  VkDeviceSize kept_bytes_ = 0;
};

}  // namespace gp::vk
