#include "vk_errors.hpp"

#include "core/error.hpp"

namespace gp::vk {

std::string result_name(VkResult r) {
  switch (r) {
#define GP_VK_NAME(x) \
  case x:             \
    return #x;
    GP_VK_NAME(VK_SUCCESS)
    GP_VK_NAME(VK_NOT_READY)
    GP_VK_NAME(VK_TIMEOUT)
    GP_VK_NAME(VK_EVENT_SET)
    GP_VK_NAME(VK_EVENT_RESET)
    GP_VK_NAME(VK_INCOMPLETE)
    GP_VK_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    GP_VK_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    GP_VK_NAME(VK_ERROR_INITIALIZATION_FAILED)
    GP_VK_NAME(VK_ERROR_DEVICE_LOST)
    GP_VK_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    GP_VK_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    GP_VK_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    GP_VK_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    GP_VK_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    GP_VK_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    GP_VK_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    GP_VK_NAME(VK_ERROR_FRAGMENTED_POOL)
    GP_VK_NAME(VK_ERROR_UNKNOWN)
    GP_VK_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    GP_VK_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    GP_VK_NAME(VK_ERROR_FRAGMENTATION)
    GP_VK_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    GP_VK_NAME(VK_PIPELINE_COMPILE_REQUIRED)
    GP_VK_NAME(VK_ERROR_VALIDATION_FAILED_EXT)
    GP_VK_NAME(VK_ERROR_INVALID_SHADER_NV)
    GP_VK_NAME(VK_ERROR_NOT_PERMITTED_KHR)
#undef GP_VK_NAME
    default:
      return "VK_RESULT_" + std::to_string(static_cast<int>(r));
  }
}

void throw_result(VkResult r, const char* api_call, const std::string& case_id, const std::string& detail) {
  std::string name = result_name(r);
  if (r == VK_ERROR_DEVICE_LOST) throw DeviceLost(api_call, name, case_id, detail);
  if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_POOL_MEMORY)
    throw OutOfMemory(api_call, name, case_id, detail);
  throw DeviceError(api_call, name, case_id, detail);
}

void check(VkResult r, const char* api_call, const std::string& case_id, const std::string& detail) {
  if (r < 0) throw_result(r, api_call, case_id, detail);
}

}  // namespace gp::vk
