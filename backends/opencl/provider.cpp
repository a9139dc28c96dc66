// Device discovery: every device of every platform. Discovery never throws; a machine without
// an OpenCL platform yields one entry that says so. Provider "opencl-src" runs a user's kernel
// directory on those devices (kernel_dir.hpp).
#include <cstdlib>

#include "backends/opencl/detail.hpp"

namespace gp::opencl {

namespace {

struct Found {
  cl::Platform platform;
  cl::Device device;
};

std::vector<Found> all_devices() {
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);  // throws CL_PLATFORM_NOT_FOUND_KHR via the ICD loader
  std::vector<Found> out;
  for (auto& p : platforms) {
    std::vector<cl::Device> devices;
    try {
      p.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
      continue;  // CL_DEVICE_NOT_FOUND: a platform without devices
    }
    for (auto& d : devices) out.push_back({p, d});
  }
  return out;
}

DeviceInfo describe(const Found& f) {
  DeviceInfo info;
  info.backend = "opencl";
  info.name = f.device.getInfo<CL_DEVICE_NAME>();
  info.driver = f.platform.getInfo<CL_PLATFORM_NAME>() + " (" + f.platform.getInfo<CL_PLATFORM_VERSION>() +
                "), driver " + f.device.getInfo<CL_DRIVER_VERSION>();
  info.api_version = f.device.getInfo<CL_DEVICE_VERSION>();
  info.math = &opencl_math_profile();
  std::string ext = f.device.getInfo<CL_DEVICE_EXTENSIONS>();
  bool fp64 = ext.find("cl_khr_fp64") != std::string::npos;
  info.dtypes = {DType::f16, DType::bf16, DType::f32};
  if (fp64) info.dtypes.push_back(DType::f64);
  for (const char* e : {"cl_khr_fp64", "cl_khr_fp16", "cl_khr_subgroups", "cl_khr_int64_base_atomics"})
    if (ext.find(e) != std::string::npos) info.notes.push_back(e);
  if (ext.find("cl_khr_fp16") == std::string::npos) info.notes.push_back("f16/bf16 as storage only (f32 arithmetic)");
  info.may_flush_subnormals = !(f.device.getInfo<CL_DEVICE_SINGLE_FP_CONFIG>() & CL_FP_DENORM);
  if (info.may_flush_subnormals) info.notes.push_back("float subnormals may flush to zero (no CL_FP_DENORM)");
  info.notes.push_back("compute units " + std::to_string(f.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>()));
  info.memory_bytes = static_cast<std::int64_t>(f.device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>());
  info.max_buffer_bytes = static_cast<std::int64_t>(f.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>());
  info.host_memory = (f.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
  info.notes.push_back("global memory " + std::to_string(info.memory_bytes >> 20) + " MiB, largest buffer " +
                       std::to_string(info.max_buffer_bytes >> 20) + " MiB");
  info.notes.push_back("max work-group " + std::to_string(f.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>()));
  info.notes.push_back("OpenCL C " + f.device.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
  return info;
}

}  // namespace

std::string default_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/gradparity/opencl";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/gradparity/opencl";
  return {};  // nowhere to cache: programs are built every time
}

std::unique_ptr<OpenclBackend> create_backend(std::size_t index, const BackendOptions& opts) {
  return translate_errors("", [&]() -> std::unique_ptr<OpenclBackend> {
    auto devices = all_devices();
    if (index >= devices.size())
      throw DeviceError(
          "clGetDeviceIDs", "CL_DEVICE_NOT_FOUND", "",
          "no OpenCL device #" + std::to_string(index) + " (" + std::to_string(devices.size()) + " found)");
    const Found& f = devices[index];
    return std::make_unique<ClBackend>(f.platform, f.device, describe(f), opts);
  });
}

}  // namespace gp::opencl

namespace gp {

BackendProvider make_opencl_provider() {
  BackendProvider p;
  p.name = "opencl";
  p.math = &opencl::opencl_math_profile();
  p.discover = [](const BackendOptions& opts) -> std::vector<DeviceEntry> {
    std::vector<DeviceEntry> entries;
    auto unavailable = [](std::string why) {
      DeviceEntry e;
      e.info.backend = "opencl";
      e.info.name = "none";
      e.unavailable = std::move(why);
      return std::vector<DeviceEntry>{std::move(e)};
    };
    try {
      auto devices = opencl::all_devices();
      if (devices.empty()) return unavailable("no OpenCL device");
      for (const auto& f : devices) {
        DeviceEntry e;
        e.info = opencl::describe(f);
        e.create = [f, info = e.info, opts]() -> std::unique_ptr<Backend> {
          return opencl::translate_errors(
              "", [&] { return std::make_unique<opencl::ClBackend>(f.platform, f.device, info, opts); });
        };
        entries.push_back(std::move(e));
      }
    } catch (const cl::Error& e) {
      return unavailable(e.err() == -1001 ? "no OpenCL platform"
                                          : std::string("OpenCL discovery failed: ") + opencl::cl_error_name(e.err()));
    } catch (const std::exception& e) {
      return unavailable(std::string("OpenCL discovery failed: ") + e.what());
    } catch (...) {
      return unavailable("OpenCL discovery failed");
    }
    return entries;
  };
  p.faults = {{"opencl-shared-kernel", "one cl_kernel set shared by every queue, arguments set and enqueued unlocked",
               [](bool on) { opencl::testing::share_kernels_unsafely = on; }}};
  return p;
}

// "opencl-src:DIR[:DEVICE]": every OpenCL device, each running the directory's kernels. The files
// are built for every device here, so that a file that does not compile or breaks the convention
// stops the run before it starts (gp::UsageError); each backend instance builds them again in its
// own context.
BackendProvider make_opencl_src_provider() {
  BackendProvider p;
  p.name = "opencl-src";
  p.loaded_math = &opencl::opencl_math_profile();
  p.discover = [](const BackendOptions&) {
    return name_one_to_load("opencl-src", "a directory of OpenCL C kernels",
                            "name a directory: --backend opencl-src:DIR[:DEVICE] (docs/kernel-files.md)");
  };
  p.load = [](const std::string& dir, const BackendOptions& opts) {
    const std::shared_ptr<const opencl::KernelDir> files = opencl::read_kernel_dir(dir);
    std::vector<opencl::Found> devices;
    try {
      devices = opencl::all_devices();
    } catch (const cl::Error&) {  // no OpenCL platform: the entry below says there is no device
    }
    std::vector<DeviceEntry> entries;
    if (devices.empty()) {
      DeviceEntry none;
      none.info.backend = "opencl-src";
      none.info.name = "none";
      none.unavailable = "no OpenCL device to run " + dir + " on";
      entries.push_back(std::move(none));
    }
    for (const auto& f : devices) {
      DeviceEntry e;
      e.info = opencl::describe(f);
      e.info.backend = "opencl-src";
      std::erase_if(e.info.notes, [](const std::string& n) { return n.find("storage only") != std::string::npos; });
      e.info.notes.insert(e.info.notes.begin(), "kernels of " + dir + " (" + std::to_string(files->files.size()) +
                                                    " files, docs/kernel-files.md)");
      opencl::translate_errors("", [&] {
        [[maybe_unused]] const opencl::KernelDirPrograms built(*files, cl::Context(f.device), f.device, true);
      });
      e.create = [f, info = e.info, opts, files]() -> std::unique_ptr<Backend> {
        return opencl::translate_errors(
            "", [&] { return std::make_unique<opencl::ClBackend>(f.platform, f.device, info, opts, files); });
      };
      e.run_in_child = true;  // code gradparity did not build: a crash is one case's ERROR
      entries.push_back(std::move(e));
    }
    return entries;
  };
  return p;
}

}  // namespace gp
