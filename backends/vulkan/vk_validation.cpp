#include "vk_validation.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace gp::vk {

void ValidationLog::add(std::string message) {
  std::lock_guard lock(mutex_);
  messages_.push_back(std::move(message));
}

std::vector<std::string> ValidationLog::take() {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  out.swap(messages_);
  return out;
}

bool validation_requested(const BackendOptions& opts) {
  if (opts.vulkan_validation) return true;
  const char* env = std::getenv("GP_VK_VALIDATION");
  return env && std::strcmp(env, "1") == 0;
}

bool validation_layer_available() {
  std::uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) < 0) return false;
  for (const auto& l : layers)
    if (std::strcmp(l.layerName, kValidationLayer) == 0) return true;
  return false;
}

void warn_validation_layer_missing_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::fprintf(stderr, "gradparity: Vulkan validation requested but %s is not installed; running without it\n",
                 kValidationLayer);
  });
}

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* log = static_cast<ValidationLog*>(user);
  std::string text = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error " : "warning ";
  text += data && data->pMessageIdName ? data->pMessageIdName : "(no id)";
  text += ": ";
  text += data && data->pMessage ? data->pMessage : "";
  log->add(std::move(text));
  return VK_FALSE;
}

}  // namespace

VkDebugUtilsMessengerCreateInfoEXT messenger_create_info(ValidationLog* log) {
  VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = on_message;
  info.pUserData = log;
  return info;
}

}  // namespace gp::vk
