#include "vk_memory_pool.hpp"

namespace gp::vk {

std::optional<MemoryPool::Block> MemoryPool::take(std::uint32_t type, VkDeviceSize size, bool mapped) {
  std::lock_guard lock(mutex_);
  auto it = kept_.find({type, size, mapped});
  if (it == kept_.end() || it->second.empty()) return std::nullopt;
  Block b = it->second.back();
  it->second.pop_back();
  kept_bytes_ -= size;
  return b;
}

void MemoryPool::give(std::uint32_t type, VkDeviceSize size, Block block) {
  {
    std::lock_guard lock(mutex_);
    if (kept_bytes_ + size <= cap_) {
      kept_[{type, size, block.mapped != nullptr}].push_back(block);
      kept_bytes_ += size;
      return;
    }
  }
  vkFreeMemory(device_, block.memory, nullptr);  // a mapping ends with its memory
}

void MemoryPool::release_all() {
  std::map<Key, std::vector<Block>> kept;
  {
    std::lock_guard lock(mutex_);
    kept.swap(kept_);
    kept_bytes_ = 0;
  }
  for (auto& [key, blocks] : kept)
    for (const Block& b : blocks) vkFreeMemory(device_, b.memory, nullptr);
}

}  // namespace gp::vk
