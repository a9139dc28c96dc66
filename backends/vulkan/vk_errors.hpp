// VkResult names and the mapping of failed Vulkan calls onto gradparity's error types:
// VK_ERROR_DEVICE_LOST -> gp::DeviceLost, out of host/device memory -> gp::OutOfMemory,
// anything else -> gp::DeviceError. Every Vulkan call's result goes through check().
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace gp::vk {

// "VK_ERROR_DEVICE_LOST", "VK_SUCCESS", ...; "VK_RESULT_<n>" for values this header lacks.
std::string result_name(VkResult r);

// Throws the matching gp error for a failed result (negative VkResult); returns otherwise.
void check(VkResult r, const char* api_call, const std::string& case_id, const std::string& detail = {});
[[noreturn]] void throw_result(VkResult r, const char* api_call, const std::string& case_id,
                               const std::string& detail = {});

}  // namespace gp::vk
