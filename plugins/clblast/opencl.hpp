// The OpenCL side of the plugin: devices found once, RAII handles, and the objects behind the
// ABI's opaque gp_device, gp_queue and gp_buffer.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gp_clblast {

// Owns one reference to an OpenCL object.
template <class T, cl_int (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T handle) : handle_(handle) {}
  Handle(Handle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  T get() const { return handle_; }
  T* address() { return &handle_; }  // CLBlast takes the queue by pointer

 private:
  void reset() {
    if (handle_) Release(handle_);  // a release error leaves nothing to recover
    handle_ = nullptr;
  }
  T handle_ = nullptr;
};

using Context = Handle<cl_context, clReleaseContext>;
using CommandQueue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Memory = Handle<cl_mem, clReleaseMemObject>;
using Program = Handle<cl_program, clReleaseProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel>;

// The arithmetic probe's program and kernels on one device (probe.cpp), built on first use.
struct ProbeKernels {
  Program program;
  Kernel f32, f64;
};

// One OpenCL device as the plugin offers it.
struct DeviceDesc {
  cl_device_id id = nullptr;
  std::string name, driver, api_version, notes;
  bool fp64 = false;
  bool flushes_subnormals = false;  // f32 without CL_FP_DENORM
};

// Every GPU, then every CPU, of every platform, in the order OpenCL lists them: the plugin's
// device 0 is the first GPU, or the first CPU where there is none. Found on the first call.
const std::vector<DeviceDesc>& devices();

// A memory object of `bytes` bytes in `context`.
Memory create_buffer(cl_context context, std::int64_t bytes);

}  // namespace gp_clblast

// The ABI's opaque types (include/gradparity/plugin.h declares them in C).
struct gp_device {
  explicit gp_device(const gp_clblast::DeviceDesc& desc);
  // A buffer of at least `count` ones of type T (float or double), written through `queue` when it
  // must grow: linear's bias is broadcast and summed by GEMMs with it.
  template <class T>
  cl_mem ones(cl_command_queue queue, std::size_t count);

  cl_device_id id;
  bool fp64;
  gp_clblast::Context context;
  gp_clblast::ProbeKernels probe;

 private:
  struct Ones {
    gp_clblast::Memory memory;
    std::size_t count = 0;
  };
  Ones ones_[2];  // f32, f64
};

struct gp_queue {
  gp_device* device;
  gp_clblast::CommandQueue queue;
};

struct gp_buffer {
  gp_clblast::Memory memory;
  std::int64_t bytes;
};
