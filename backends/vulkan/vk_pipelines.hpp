// Compute pipelines, created lazily from the embedded SPIR-V and kept for the backend's life.
// Every shader uses one descriptor-set layout (kMaxBindings storage buffers) and one 128-byte
// push-constant range, so one VkPipelineLayout serves all of them.
//
// The op and mode inside a family are specialization constants (common.glsl), with two
// policies. Generic: one pipeline per (family, dtype) that reads them from push constants (a
// uniform switch), for CPU devices: lavapipe compiles each pipeline at first dispatch
// (15-57 ms) and executes every branch of a switch under a lane mask anyway. Specialized: one
// pipeline per (family, dtype, op, mode), for GPUs, where the folded constant leaves only the
// op's own code, so the compiler can unroll its loops and size its registers for it. The
// default follows the device type; GP_VK_SPECIALIZE=0 or 1 overrides it.
#pragma once

#include <vulkan/vulkan.h>

#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/dtype.hpp"
#include "shaders/op_codes.h"  // SPEC_FROM_PUSH
#include "vk_context.hpp"
#include "vk_pipeline_cache.hpp"

namespace gp::vk {

inline constexpr std::uint32_t kMaxBindings = 11;
inline constexpr std::uint32_t kPushConstantBytes = 128;

// Values of a dispatch's specialization constants SPEC_OP and SPEC_MODE.
struct Spec {
  std::uint32_t op = SPEC_FROM_PUSH, mode = SPEC_FROM_PUSH;
};

class Pipelines {
 public:
  Pipelines(Context& ctx, PipelineCache& cache);
  ~Pipelines();
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  // The pipeline of `family` ("unary", "binary", "rowwise", "linalg", "log_matmul_exp", "layout", "tt_embedding", ...)
  // for storage dtype `dtype`, specialized for `spec` or the generic one; thread-safe, created on first use.
  VkPipeline get(std::string_view family, DType dtype, Spec spec, const std::string& case_id);
  // The pipeline of a user's shader (vulkan-spirv), with this layout: its bindings are a
  // subset of the kMaxBindings, and it reads no push constants or specialization constants.
  VkPipeline get_user(const std::string& name, std::span<const std::uint32_t> spirv, const std::string& case_id);
  std::size_t created() const;

  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }

 private:
  VkPipeline create_locked(const std::string& key, std::span<const std::uint32_t> spirv, Spec spec,
                           const std::string& case_id);

  Context& ctx_;
  PipelineCache& cache_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  bool specialize_ = false;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, VkPipeline> pipelines_;
};

}  // namespace gp::vk
