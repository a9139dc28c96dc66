// OpenCL error codes as names, and the translation of cl::Error into gp::DeviceError.
#include "backends/opencl/detail.hpp"

namespace gp::opencl {

// One X(...) a line: the list reads as a table, and a new code is one line.
// clang-format off
#define GP_CL_ERRORS(X) \
  X(CL_SUCCESS) \
  X(CL_DEVICE_NOT_FOUND) \
  X(CL_DEVICE_NOT_AVAILABLE) \
  X(CL_COMPILER_NOT_AVAILABLE) \
  X(CL_MEM_OBJECT_ALLOCATION_FAILURE) \
  X(CL_OUT_OF_RESOURCES) \
  X(CL_OUT_OF_HOST_MEMORY) \
  X(CL_PROFILING_INFO_NOT_AVAILABLE) \
  X(CL_MEM_COPY_OVERLAP) \
  X(CL_IMAGE_FORMAT_MISMATCH) \
  X(CL_IMAGE_FORMAT_NOT_SUPPORTED) \
  X(CL_BUILD_PROGRAM_FAILURE) \
  X(CL_MAP_FAILURE) \
  X(CL_MISALIGNED_SUB_BUFFER_OFFSET) \
  X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) \
  X(CL_COMPILE_PROGRAM_FAILURE) \
  X(CL_LINKER_NOT_AVAILABLE) \
  X(CL_LINK_PROGRAM_FAILURE) \
  X(CL_DEVICE_PARTITION_FAILED) \
  X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) \
  X(CL_INVALID_VALUE) \
  X(CL_INVALID_PLATFORM) \
  X(CL_INVALID_DEVICE) \
  X(CL_INVALID_CONTEXT) \
  X(CL_INVALID_QUEUE_PROPERTIES) \
  X(CL_INVALID_COMMAND_QUEUE) \
  X(CL_INVALID_HOST_PTR) \
  X(CL_INVALID_MEM_OBJECT) \
  X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) \
  X(CL_INVALID_IMAGE_SIZE) \
  X(CL_INVALID_SAMPLER) \
  X(CL_INVALID_BINARY) \
  X(CL_INVALID_BUILD_OPTIONS) \
  X(CL_INVALID_PROGRAM) \
  X(CL_INVALID_PROGRAM_EXECUTABLE) \
  X(CL_INVALID_KERNEL_NAME) \
  X(CL_INVALID_KERNEL_DEFINITION) \
  X(CL_INVALID_KERNEL) \
  X(CL_INVALID_ARG_INDEX) \
  X(CL_INVALID_ARG_VALUE) \
  X(CL_INVALID_ARG_SIZE) \
  X(CL_INVALID_KERNEL_ARGS) \
  X(CL_INVALID_WORK_DIMENSION) \
  X(CL_INVALID_WORK_GROUP_SIZE) \
  X(CL_INVALID_WORK_ITEM_SIZE) \
  X(CL_INVALID_GLOBAL_OFFSET) \
  X(CL_INVALID_EVENT_WAIT_LIST) \
  X(CL_INVALID_EVENT) \
  X(CL_INVALID_GL_OBJECT) \
  X(CL_INVALID_BUFFER_SIZE) \
  X(CL_INVALID_MIP_LEVEL) \
  X(CL_INVALID_PROPERTY) \
  X(CL_INVALID_IMAGE_DESCRIPTOR) \
  X(CL_INVALID_COMPILER_OPTIONS) \
  X(CL_INVALID_LINKER_OPTIONS) \
  X(CL_INVALID_DEVICE_PARTITION_COUNT)
// clang-format on

const char* cl_error_name(cl_int code) {
  switch (code) {
#define GP_CASE(name) \
  case name:          \
    return #name;
    GP_CL_ERRORS(GP_CASE)
#undef GP_CASE
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";  // ICD loader: no platform installed
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

bool is_out_of_memory(cl_int code) {
  return code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES || code == CL_OUT_OF_HOST_MEMORY;
}

void rethrow_device_error(const cl::Error& e, const std::string& case_id, const std::string& detail) {
  std::string name = cl_error_name(e.err());
  if (name == "CL_UNKNOWN_ERROR") name += "(" + std::to_string(e.err()) + ")";
  // cl::Error::what() is the name of the failing API function.
  std::string call = e.what() ? e.what() : "OpenCL call";
  if (is_out_of_memory(e.err())) throw OutOfMemory(call, name, case_id, detail);
  throw DeviceError(call, name, case_id, detail);
}

}  // namespace gp::opencl
