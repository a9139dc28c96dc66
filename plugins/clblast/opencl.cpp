#include "opencl.hpp"

#include <clblast.h>

#include <vector>

#include "status.hpp"

#define GP_STR(x) #x
#define GP_VERSION(a, b, c) GP_STR(a) "." GP_STR(b) "." GP_STR(c)

namespace gp_clblast {

namespace {

template <class T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  check(clGetDeviceInfo(device, what, sizeof value, &value, nullptr), "clGetDeviceInfo");
  return value;
}

template <class Query, class Object, class Info>
std::string text(Query query, Object object, Info what) {
  std::size_t size = 0;
  check(query(object, what, 0, nullptr, &size), "clGet*Info");
  std::string s(size, '\0');
  check(query(object, what, size, s.data(), nullptr), "clGet*Info");
  return std::string(s.c_str());  // without the terminating NUL
}

std::vector<cl_device_id> devices_of(cl_platform_id platform, cl_device_type type) {
  cl_uint count = 0;
  const cl_int status = clGetDeviceIDs(platform, type, 0, nullptr, &count);
  if (status == CL_DEVICE_NOT_FOUND) return {};
  check(status, "clGetDeviceIDs");
  std::vector<cl_device_id> ids(count);
  check(clGetDeviceIDs(platform, type, count, ids.data(), nullptr), "clGetDeviceIDs");
  return ids;
}

DeviceDesc describe(cl_platform_id platform, cl_device_id id) {
  DeviceDesc d;
  d.id = id;
  d.name = text(clGetDeviceInfo, id, CL_DEVICE_NAME);
  d.driver = text(clGetPlatformInfo, platform, CL_PLATFORM_NAME) + " " + text(clGetDeviceInfo, id, CL_DRIVER_VERSION);
  d.api_version = text(clGetDeviceInfo, id, CL_DEVICE_VERSION);
  d.fp64 = device_value<cl_device_fp_config>(id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  d.flushes_subnormals = (device_value<cl_device_fp_config>(id, CL_DEVICE_SINGLE_FP_CONFIG) & CL_FP_DENORM) == 0;
  const bool fp16 = text(clGetDeviceInfo, id, CL_DEVICE_EXTENSIONS).find("cl_khr_fp16") != std::string::npos;
  d.notes = std::string("CLBlast ") + GP_VERSION(CLBLAST_VERSION_MAJOR, CLBLAST_VERSION_MINOR, CLBLAST_VERSION_PATCH) +
            " GEMM/GEMV, " + (d.fp64 ? "f32 and f64" : "f32 only") + "; f16 not implemented (" +
            (fp16 ? "the device has cl_khr_fp16" : "no cl_khr_fp16") + ")";
  return d;
}

std::vector<DeviceDesc> find_devices() {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return {};  // no ICD: no devices
  std::vector<cl_platform_id> platforms(count);
  check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
  std::vector<DeviceDesc> found;
  for (cl_device_type type : {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU})
    for (cl_platform_id p : platforms)
      for (cl_device_id id : devices_of(p, type)) found.push_back(describe(p, id));
  return found;
}

}  // namespace

const std::vector<DeviceDesc>& devices() {
  static const std::vector<DeviceDesc> all = find_devices();
  return all;
}

Memory create_buffer(cl_context context, std::int64_t bytes) {
  cl_int status = CL_SUCCESS;
  // OpenCL refuses empty buffers; an empty tensor still gets a handle.
  Memory m(clCreateBuffer(context, CL_MEM_READ_WRITE, bytes > 0 ? std::size_t(bytes) : 1, nullptr, &status));
  check(status, "clCreateBuffer");
  return m;
}

}  // namespace gp_clblast

using namespace gp_clblast;

gp_device::gp_device(const DeviceDesc& desc) : id(desc.id), fp64(desc.fp64) {
  cl_int status = CL_SUCCESS;
  context = Context(clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status));
  check(status, "clCreateContext");
}

template <class T>
cl_mem gp_device::ones(cl_command_queue queue, std::size_t count) {
  Ones& o = ones_[sizeof(T) == sizeof(float) ? 0 : 1];
  if (o.count < count) {
    const std::vector<T> host(count, T(1));
    o.memory = create_buffer(context.get(), std::int64_t(count * sizeof(T)));
    check(clEnqueueWriteBuffer(queue, o.memory.get(), CL_TRUE, 0, count * sizeof(T), host.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    o.count = count;
  }
  return o.memory.get();
}

template cl_mem gp_device::ones<float>(cl_command_queue, std::size_t);
template cl_mem gp_device::ones<double>(cl_command_queue, std::size_t);
