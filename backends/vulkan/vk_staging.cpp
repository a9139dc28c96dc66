#include "vk_staging.hpp"

#include <algorithm>

namespace gp::vk {

namespace {

constexpr VkDeviceSize kChunkBytes = VkDeviceSize{4} << 20;
constexpr VkDeviceSize kSliceAlignment = 16;
constexpr std::size_t kChunksKept = 8;  // at reset: a run's queues keep 32 MiB each at most

}  // namespace

StagingArena::Slice StagingArena::take(VkDeviceSize bytes, const std::string& case_id) {
  if (trim_) {  // one-off large chunks and chunks beyond the usual few go back to the memory pool
    std::erase_if(chunks_, [](const auto& c) { return c->data_bytes() > kChunkBytes; });
    if (chunks_.size() > kChunksKept) chunks_.resize(kChunksKept);
    trim_ = false;
  }
  bytes = std::max<VkDeviceSize>((bytes + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment, kSliceAlignment);
  while (current_ < chunks_.size() && used_ + bytes > chunks_[current_]->data_bytes()) {
    ++current_;
    used_ = 0;
  }
  if (current_ == chunks_.size()) {
    const VkDeviceSize chunk = std::max(kChunkBytes, bytes);
    chunks_.push_back(std::make_unique<VulkanBuffer>(ctx_, DType::f32, Shape{static_cast<std::int64_t>(chunk / 4)},
                                                     Placement::host_visible, case_id));
    used_ = 0;
  }
  const VulkanBuffer& b = *chunks_[current_];
  const VkDeviceSize at = b.data_offset() + used_;
  used_ += bytes;
  return {&b, at, b.mapped() + at};
}

void StagingArena::reset() noexcept {
  trim_ = true;
  current_ = 0;
  used_ = 0;
}

}  // namespace gp::vk
