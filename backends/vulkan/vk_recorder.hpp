// Records the dispatches of one forward or backward call into the queue's command buffer.
// A global memory barrier (compute/transfer write -> compute/transfer read/write) precedes
// every dispatch, the first included (it orders against the calls and copies recorded before and
// earlier submits), so dependent dispatches are ordered without one submit per dispatch; buffers
// that are written are remembered for the canary check after the submit.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shaders/op_codes.h"  // ELEMS_PER_INVOCATION
#include "vk_memory.hpp"
#include "vk_shared.hpp"

namespace gp::vk {

struct Bind {
  std::uint32_t binding;
  const VulkanBuffer* buffer;
};

// The work groups of one dispatch along x, y and z.
struct WorkGroups {
  std::uint32_t x = 1, y = 1, z = 1;
};

class Recorder {
 public:
  Recorder(Shared& shared, VkCommandBuffer cmd, VkDescriptorPool pool, const VulkanBuffer& dummy, std::string case_id)
      : shared_(shared), cmd_(cmd), pool_(pool), dummy_(dummy), case_id_(std::move(case_id)) {}

  const std::string& case_id() const { return case_id_; }
  Context& ctx() { return *shared_.ctx; }

  // Every Push type has a `Spec spec_of(const Push&)` beside it (found by argument-dependent
  // lookup): the op and mode that select a specialized pipeline.
  // One dispatch of `family`'s pipeline for `dtype` with a linear number of work groups
  // (spread over a 2-D grid when it exceeds 65535; shaders use group_linear()).
  template <typename Push>
  void dispatch_groups(std::string_view family, DType dtype, std::span<const Bind> binds, const Push& push,
                       std::uint64_t groups) {
    static_assert(sizeof(Push) <= kPushConstantBytes);
    auto [gx, gy] = grid(groups);
    record(family, dtype, spec_of(push), binds, {&push, sizeof(Push)}, {gx, gy, 1});
  }
  template <typename Push>
  void dispatch_groups(std::string_view family, DType dtype, std::initializer_list<Bind> binds, const Push& push,
                       std::uint64_t groups) {
    dispatch_groups(family, dtype, std::span<const Bind>(binds.begin(), binds.size()), push, groups);
  }
  // The elementwise shaders (common.glsl's item()): ELEMS_PER_INVOCATION items per invocation,
  // `local` invocations per work group.
  template <typename Push>
  void dispatch_items(std::string_view family, DType dtype, std::initializer_list<Bind> binds, const Push& push,
                      std::uint64_t items, std::uint32_t local = 256) {
    const std::uint64_t per_group = std::uint64_t{local} * ELEMS_PER_INVOCATION;
    dispatch_groups(family, dtype, binds, push, (items + per_group - 1) / per_group);
  }
  // A 3-D grid as given (matmul tiles x, y and the batch in z).
  template <typename Push>
  void dispatch_3d(std::string_view family, DType dtype, std::initializer_list<Bind> binds, const Push& push,
                   WorkGroups groups) {
    static_assert(sizeof(Push) <= kPushConstantBytes);
    record(family, dtype, spec_of(push), std::span<const Bind>(binds.begin(), binds.size()), {&push, sizeof(Push)},
           groups);
  }

  // One dispatch of a user's shader (vulkan-spirv) over `groups` work groups, spread on a 2-D
  // grid as dispatch_groups does.
  void dispatch_user(const ShaderFile& shader, std::span<const Bind> binds, std::uint64_t groups);
  // Writes `bytes` (a multiple of 4, at most 65536) into `b` as a command of this recording: the
  // barrier before the next dispatch orders it.
  void update(const VulkanBuffer& b, const void* data, std::size_t bytes);
  const ShaderDir* kernel_files() const { return shared_.files.get(); }

  // Declares that the next dispatches write `b` (canaries are checked after the submit; for
  // unmapped buffers the canary pattern is filled here the first time).
  void writes(const VulkanBuffer& b);
  // A temporary device buffer that lives until the submit has finished.
  VulkanBuffer& scratch(DType dtype, std::int64_t count);

  const std::vector<const VulkanBuffer*>& written() const { return written_; }
  // Descriptor sets allocated so far (one per dispatch).
  std::uint32_t sets() const { return static_cast<std::uint32_t>(dispatches_); }
  // The scratch buffers, which must outlive the submission that runs this recording.
  std::vector<std::unique_ptr<VulkanBuffer>> take_scratch() { return std::move(scratch_); }

 private:
  static std::pair<std::uint32_t, std::uint32_t> grid(std::uint64_t groups);
  struct PushBlock {
    const void* data;
    std::size_t bytes;
  };
  void record(std::string_view family, DType dtype, Spec spec, std::span<const Bind> binds, PushBlock push,
              WorkGroups groups);
  void record_pipeline(VkPipeline pipeline, const std::string& what, std::span<const Bind> binds, PushBlock push,
                       WorkGroups groups);
  void barrier();

  Shared& shared_;
  VkCommandBuffer cmd_;
  VkDescriptorPool pool_;
  const VulkanBuffer& dummy_;
  std::string case_id_;
  std::vector<const VulkanBuffer*> written_;
  std::vector<std::unique_ptr<VulkanBuffer>> scratch_;
  int dispatches_ = 0;  // recorded so far (vk_testing::skip_dependent_barriers keeps the first barrier)
};

}  // namespace gp::vk
