#include "probe.hpp"

#include <string>

#include "status.hpp"

namespace gp_clblast {

namespace {

// Eight chains of x -> 0.999999 x + 1e-6 per work item, summed at the end so that none is dead
// code; `rounds` is steps / 8.
const char* const kSource = R"CL(
#define PROBE(T, NAME)                                                                        \
  __kernel void NAME(__global T* out, const int rounds) {                                     \
    const size_t i = get_global_id(0);                                                        \
    T x0 = (T)i, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, \
      x7 = x0 + 7;                                                                            \
    const T a = (T)0.999999, b = (T)1e-6;                                                     \
    for (int s = 0; s < rounds; ++s) {                                                        \
      x0 = fma(a, x0, b); x1 = fma(a, x1, b); x2 = fma(a, x2, b); x3 = fma(a, x3, b);         \
      x4 = fma(a, x4, b); x5 = fma(a, x5, b); x6 = fma(a, x6, b); x7 = fma(a, x7, b);         \
    }                                                                                         \
    out[i] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));                               \
  }
PROBE(float, probe_f32)
#ifdef GP_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
PROBE(double, probe_f64)
#endif
)CL";

Program build(const gp_device& device) {
  cl_int status = CL_SUCCESS;
  const char* source = kSource;
  Program program(clCreateProgramWithSource(device.context.get(), 1, &source, nullptr, &status));
  check(status, "clCreateProgramWithSource (arithmetic probe)");
  const char* options = device.fp64 ? "-DGP_FP64" : "";
  status = clBuildProgram(program.get(), 1, &device.id, options, nullptr, nullptr);
  if (status != CL_SUCCESS) {
    std::size_t size = 0;
    clGetProgramBuildInfo(program.get(), device.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program.get(), device.id, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    throw Failure("clBuildProgram (arithmetic probe): " + status_name(status) + ": " + log);
  }
  return program;
}

Kernel create(const Program& program, const char* name) {
  cl_int status = CL_SUCCESS;
  Kernel kernel(clCreateKernel(program.get(), name, &status));
  check(status, "clCreateKernel (arithmetic probe)");
  return kernel;
}

// The kernel for `dtype` (f32, or f64 on a device with it), or nullptr for a dtype without one.
cl_kernel kernel_for(gp_device& device, gp_dtype dtype) {
  if (dtype != GP_DTYPE_F32 && (dtype != GP_DTYPE_F64 || !device.fp64)) return nullptr;
  ProbeKernels& p = device.probe;
  if (!p.program.get()) {
    p.program = build(device);
    p.f32 = create(p.program, "probe_f32");
    if (device.fp64) p.f64 = create(p.program, "probe_f64");
  }
  return dtype == GP_DTYPE_F32 ? p.f32.get() : p.f64.get();
}

}  // namespace

bool enqueue_probe(gp_queue& queue, gp_buffer& out, gp_dtype dtype, std::int64_t elements, std::int32_t steps) {
  cl_kernel kernel = kernel_for(*queue.device, dtype);
  if (!kernel) return false;
  const std::int64_t size = dtype == GP_DTYPE_F32 ? 4 : 8;
  if (elements * size > out.bytes)
    throw Failure("arithmetic probe of " + std::to_string(elements) + " elements into a buffer of " +
                  std::to_string(out.bytes) + " bytes");
  if (elements == 0) return true;
  const cl_int rounds = steps / 8;
  cl_mem memory = out.memory.get();
  check(clSetKernelArg(kernel, 0, sizeof memory, &memory), "clSetKernelArg (arithmetic probe)");
  check(clSetKernelArg(kernel, 1, sizeof rounds, &rounds), "clSetKernelArg (arithmetic probe)");
  const auto global = static_cast<std::size_t>(elements);
  check(clEnqueueNDRangeKernel(queue.queue.get(), kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel (arithmetic probe)");
  return true;
}

}  // namespace gp_clblast
