// The host-visible memory a queue copies its uploads from and its downloads into between two
// submissions: slices of a few large buffers, handed out in order and all free again once the
// submission that used them has finished. A staging buffer of its own per upload and download
// was a buffer creation, a memory binding and often a vkAllocateMemory each; with the calls of a
// whole graph or training run in one submission, hundreds of them were alive at once and the
// memory pool had none to hand back.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vk_memory.hpp"

namespace gp::vk {

class Context;

class StagingArena {
 public:
  explicit StagingArena(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx)) {}

  struct Slice {
    const VulkanBuffer* buffer;
    VkDeviceSize offset;  // in `buffer`, for vkCmdCopyBuffer
    std::byte* host;      // the same bytes, mapped
  };
  // `bytes` of staging memory, valid until reset(). Throws gp::OutOfMemory.
  Slice take(VkDeviceSize bytes, const std::string& case_id);
  // Every slice free again: call it only when no submission that uses one is pending. The bytes
  // stay as they are until the next take() (a download reads its slices after the submission).
  void reset() noexcept;

 private:
  std::shared_ptr<Context> ctx_;
  std::vector<std::unique_ptr<VulkanBuffer>> chunks_;
  std::size_t current_ = 0;  // the chunk slices come from
  VkDeviceSize used_ = 0;    // bytes of it handed out
  bool trim_ = false;        // reset() since the last take(): chunks may be released
};

}  // namespace gp::vk
