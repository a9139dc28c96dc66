// The Vulkan backend: every op of core/op_list.hpp, forward and VJP, as GLSL compute shaders.
//
// Thread-safety contract (backends/backend.hpp asks every backend to state how it holds):
//   * VulkanBackend is shared. info(), supports(), allocate(), create_queue(),
//     take_canary_violations() and take_validation_messages() may be called by many threads at
//     once: pipelines are created lazily under a mutex, vkCreate*/vkAllocateMemory need no
//     external synchronisation, and the message / violation lists are mutex-protected.
//   * The VkQueue is shared by all gp::Queue objects of a backend (lavapipe has one queue family
//     with one queue): every vkQueueSubmit runs under one mutex (Context::submit).
//   * Each gp::Queue (one per thread, by the interface's contract) owns its VkCommandPool, its
//     command buffer, its VkDescriptorPool (and the descriptor-set updates from it), its fence and
//     its timestamp query pool; no other queue touches them, so they need no lock.
//   * A DeviceBuffer is used by one queue at a time; host mapping happens once at creation and
//     unmapping at destruction. Each forward/backward is ONE submit followed by a fence wait,
//     so no kernel is in flight when a call returns. An upload into a device-local buffer is
//     copied by the queue's next submission (a call, a download, finish()); a buffer destroyed
//     before then drops that copy, so buffers may still be freed at any time by the thread of
//     the queue that uses them.
// Device loss: a VK_ERROR_DEVICE_LOST (or a fence that never signals) marks the backend lost;
// every later call throws gp::DeviceLost carrying the first failure's call and reason.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/registry.hpp"

namespace gp {

namespace vk {
struct Shared;
struct ShaderDir;
// The built-ins' specified accuracy and the shaders' own functions (math_profile.cpp).
const MathProfile& vulkan_math_profile();
// A user's shaders (vulkan-spirv): the built-ins' specified accuracy alone (math_profile_spec.cpp).
const MathProfile& vulkan_spec_math_profile();
// The specification's division, sqrt and inversesqrt, which both profiles take as they are;
// nullopt for the other functions.
std::optional<FnBudget> vulkan_arithmetic_budget(MathFn fn);
// One unit in the last place of dtype t at |v|, as both profiles' derivations count it.
inline double ulp_at(DType t, long double v) { return ulp_of(t, static_cast<double>(v < 0 ? -v : v)); }
}  // namespace vk

class VulkanBackend final : public Backend {
 public:
  // Creates an instance (validation when opts.vulkan_validation or GP_VK_VALIDATION=1) and a
  // device on physical device `device_index`. Throws gp::DeviceError when that fails.
  // With `files`, it runs that directory's shaders instead of its own (vulkan-spirv).
  explicit VulkanBackend(const BackendOptions& opts, std::uint32_t device_index = 0,
                         std::shared_ptr<const vk::ShaderDir> files = nullptr);
  ~VulkanBackend() override;

  const DeviceInfo& info() const override { return info_; }
  Support supports(const OpCall& call) const override;
  std::unique_ptr<DeviceBuffer> allocate(DType dtype, const Shape& shape) override;
  std::unique_ptr<Queue> create_queue() override;
  std::vector<std::string> take_canary_violations() override;
  std::vector<std::string> take_validation_messages() override;

  // --- Vulkan specifics -------------------------------------------------------------------
  bool validation_enabled() const;
  struct PipelineCacheReport {
    std::string path;       // the cache file
    bool loaded_from_disk;  // a valid file was read at start-up
    std::string note;       // why it was not ("no cache file", "hash mismatch", ...)
    std::size_t pipelines;  // pipelines created so far
  };
  PipelineCacheReport pipeline_cache_report() const;
  // Command buffers submitted so far by every queue (tests count them).
  std::uint64_t submissions() const;
  // Test hook: behave as if the device had been lost in `api_call`.
  void mark_device_lost_for_testing(const std::string& api_call);

 private:
  std::shared_ptr<vk::Shared> shared_;
  DeviceInfo info_;
};

// Device timestamps around each forward/backward command buffer of one queue (benchmarks).
void vulkan_set_timestamps(Queue& queue, bool on);
// Device time in seconds of the queue's last submitted command buffer (timestamps on).
double vulkan_last_device_seconds(const Queue& queue);
// Records each call `n` times into its one command buffer; the device time is the mean per call.
void vulkan_set_repeat(Queue& queue, std::uint32_t n);
// dst = src through the copy compute shader (not vkCmdCopyBuffer), one submit.
void vulkan_copy_shader(Queue& queue, const DeviceBuffer& src, DeviceBuffer& dst);
// dst = src through vkCmdCopyBuffer, one submit (the transfer engine, for comparison).
void vulkan_copy_transfer(Queue& queue, const DeviceBuffer& src, DeviceBuffer& dst);
// Test hook: overwrites one canary byte `offset` bytes from the data start (negative: before
// it; >= data size: after it), as an out-of-bounds write would; the next submit that writes the
// buffer reports it. Works on mapped and device-local buffers (through `queue`).
void vulkan_corrupt_canary_for_testing(Queue& queue, DeviceBuffer& buffer, long offset, std::uint8_t value = 0);

BackendProvider make_vulkan_provider();
// "vulkan-spirv:DIR[:DEVICE]": a user's directory of compute shaders on those devices
// (docs/kernel-files.md).
BackendProvider make_vulkan_spirv_provider();

// Test-only fault injection: positive controls of the thread-safety stress runner
// (harness/audit/stress.hpp, `gradparity stress --inject`). Both are off by default, process-wide and
// unreachable from BackendOptions; they break the contract above on purpose so that a stress
// run can prove it detects the breakage. Never set them outside such tests.
namespace vk_testing {
// Context::submit calls vkQueueSubmit WITHOUT the submission mutex (a VkQueue race).
inline std::atomic<bool> submit_without_queue_lock{false};
// The recorder omits the barrier before every dispatch but the first of a command buffer, so
// dependent dispatches of one call (backward passes) read what the previous one still writes.
inline std::atomic<bool> skip_dependent_barriers{false};
}  // namespace vk_testing

}  // namespace gp
