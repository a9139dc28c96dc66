// Compute pipelines, created lazily from the embedded SPIR-V and kept for the backend's life.
// Every shader uses one descriptor-set layout (kMaxBindings storage buffers) and one 128-byte
// push-constant range, so one VkPipelineLayout serves all of them.
//
// Pipeline count: one per (shader family, dtype) - 5 families x 4 dtypes at most, of which a
// run typically touches 5 per dtype. The op inside a family is a push-constant code (a
// uniform branch) rather than a specialization constant, because lavapipe compiles each
// pipeline at first dispatch (15-57 ms) and ~50 ops x 4 dtypes x fwd/bwd pipelines would make a
// cold start take seconds; on a GPU the uniform switch costs a few scalar instructions.
#pragma once

#include <vulkan/vulkan.h>

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/dtype.hpp"
#include "vk_context.hpp"
#include "vk_pipeline_cache.hpp"

namespace gp::vk {

inline constexpr std::uint32_t kMaxBindings = 10;
inline constexpr std::uint32_t kPushConstantBytes = 128;

class Pipelines {
 public:
  Pipelines(Context& ctx, PipelineCache& cache);
  ~Pipelines();
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  // The pipeline of `family` ("unary", "binary", "rowwise", "matmul", "copy") for storage
  // dtype `dtype`; thread-safe, created on first use.
  VkPipeline get(std::string_view family, DType dtype, const std::string& case_id);
  // Creates every embedded variant the device supports (start-up measurements, warm-up).
  void create_all(bool float64, bool storage16);
  std::size_t created() const;

  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }

 private:
  VkPipeline create_locked(const std::string& name, const std::string& case_id);

  Context& ctx_;
  PipelineCache& cache_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, VkPipeline> pipelines_;
};

}  // namespace gp::vk
