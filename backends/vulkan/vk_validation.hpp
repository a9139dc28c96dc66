// The Khronos validation layer and its messages. When validation is on, the instance enables
// VK_LAYER_KHRONOS_validation with synchronization validation (VK_EXT_validation_features) and
// a debug messenger records every warning and error, with its message id name, in a
// ValidationLog that tests drain through Backend::take_validation_messages().
#pragma once

#include <vulkan/vulkan.h>

#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.hpp"

namespace gp::vk {

class ValidationLog {
 public:
  void add(std::string message);
  std::vector<std::string> take();  // returns and clears, thread-safe

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
};

inline constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// BackendOptions::vulkan_validation, or the environment variable GP_VK_VALIDATION=1.
bool validation_requested(const BackendOptions& opts);
bool validation_layer_available();
// Prints one line to stderr the first time it is called in the process.
void warn_validation_layer_missing_once();

// Messenger settings: warnings and errors of every message type go to `log`. The callback
// returns VK_FALSE (VK_TRUE deadlocked validation layer 1.3.239).
VkDebugUtilsMessengerCreateInfoEXT messenger_create_info(ValidationLog* log);

}  // namespace gp::vk
