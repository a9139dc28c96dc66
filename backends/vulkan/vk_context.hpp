// Instance, physical-device facts and the logical device with its one shared VkQueue.
// Context is shared by the backend, its queues and its buffers (shared_ptr): it owns the
// VkQueue submission mutex and the device-lost state.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "vk_memory_pool.hpp"
#include "vk_validation.hpp"

namespace gp::vk {

class Instance {
 public:
  // Throws gp::DeviceError("vkCreateInstance", ...) on failure. With validation, `log` receives
  // messages (also those of instance creation itself).
  Instance(bool validation, ValidationLog* log);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  VkInstance handle() const { return instance_; }
  std::uint32_t api_version() const { return api_version_; }
  bool validation() const { return validation_; }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::uint32_t api_version_ = VK_API_VERSION_1_1;
  bool validation_ = false;
};

// What gradparity needs to know about one physical device.
struct DeviceFacts {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  std::uint32_t api_version = 0;  // min(instance, device)
  bool usable = false;            // Vulkan 1.1, a compute queue, subgroup arithmetic in compute
  std::string unusable_reason;
  bool float64 = false;
  bool storage16 = false;
  std::uint32_t queue_family = 0;
  std::uint32_t timestamp_valid_bits = 0;
  std::uint32_t subgroup_size = 0;
  bool subgroup_arithmetic = false;  // in compute shaders (reduce.glsl needs it)
  DeviceInfo info;
};

std::vector<DeviceFacts> describe_devices(const Instance& instance);
std::string version_string(std::uint32_t v);

class Context {
 public:
  // Creates an instance (validation per options) and a device on physical device `index`.
  Context(const BackendOptions& opts, std::uint32_t index);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkDevice device() const { return device_; }
  VkPhysicalDevice physical() const { return facts_.physical; }
  const DeviceFacts& facts() const { return facts_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }
  bool validation_enabled() const { return instance_->validation(); }
  // GP_VK_STAGING=1: tensor buffers are never mapped (tests the discrete-GPU path anywhere).
  bool force_staging() const { return force_staging_; }
  // Whether each queue times its submissions for the run's profile: where the queue family has
  // timestamps, by default not on CPU implementations (on lavapipe they cost a fifth of a warm
  // run's Vulkan calls, and the device's time is the host's anyway); GP_VK_TIMESTAMPS=1 / 0
  // overrides.
  bool time_submissions() const { return time_submissions_; }
  ValidationLog& validation_log() { return *log_; }
  MemoryPool& memory_pool() { return *memory_pool_; }

  // check() for calls on this device: VK_ERROR_DEVICE_LOST also marks the context lost.
  void check(VkResult r, const char* api_call, const std::string& case_id, const std::string& detail = {});
  // Throws gp::DeviceLost (with the original call and reason) once the device was lost.
  void ensure_alive(const std::string& case_id) const;
  void mark_lost(const std::string& api_call, const std::string& detail);
  bool lost() const { return lost_.load(); }

  // vkQueueSubmit under the queue mutex: lavapipe (and many devices) expose one VkQueue, which
  // the Vulkan spec makes externally synchronized.
  void submit(VkCommandBuffer cmd, VkFence fence, const std::string& case_id);
  // Submissions so far (tests: an upload rides in the next call's submission).
  std::uint64_t submissions() const { return submissions_.load(); }

 private:
  std::unique_ptr<ValidationLog> log_;
  std::unique_ptr<Instance> instance_;
  DeviceFacts facts_;
  VkPhysicalDeviceMemoryProperties memory_{};
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::unique_ptr<MemoryPool> memory_pool_;
  bool force_staging_ = false;
  bool time_submissions_ = false;
  std::mutex submit_mutex_;
  std::atomic<bool> lost_{false};
  std::atomic<std::uint64_t> submissions_{0};
  mutable std::mutex lost_mutex_;
  std::string lost_call_, lost_detail_;
};

}  // namespace gp::vk
