// The plugin's C entry points: gradparity's ABI (include/gradparity/plugin.h) over CLBlast on the
// first OpenCL GPU or CPU device (and reshape as a buffer copy, bench's bandwidth). Each function
// runs its work inside `guarded`, which turns an exception into GP_ERROR and the text last_error()
// returns: nothing C++ crosses the boundary.
#include <gradparity/plugin.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "copy_ops.hpp"
#include "gemm_ops.hpp"
#include "opencl.hpp"
#include "probe.hpp"
#include "status.hpp"

using namespace gp_clblast;

namespace {

thread_local std::string error_text;

template <class F>
gp_status guarded(F&& work) {
  try {
    work();
    return GP_OK;
  } catch (const std::exception& e) {
    error_text = e.what();
  } catch (...) {
    error_text = "unknown exception";
  }
  return GP_ERROR;
}

const DeviceDesc& device_at(int32_t index) {
  if (index < 0 || std::size_t(index) >= devices().size()) throw Failure("no device " + std::to_string(index));
  return devices()[std::size_t(index)];
}

void require_capacity(int64_t bytes, const gp_buffer* buffer, const char* what) {
  if (bytes > buffer->bytes)
    throw Failure(std::string(what) + " of " + std::to_string(bytes) + " bytes into a buffer of " +
                  std::to_string(buffer->bytes));
}

int32_t device_count() {
  int32_t count = 0;
  // Without an ICD or a device the plugin has no device; it never fails to load for that.
  guarded([&] { count = int32_t(devices().size()); });
  return count;
}

gp_status device_info(int32_t index, gp_device_info* out) {
  return guarded([&] {
    const DeviceDesc& d = device_at(index);
    out->name = d.name.c_str();
    out->driver = d.driver.c_str();
    out->api_version = d.api_version.c_str();
    out->dtypes = GP_DTYPE_BIT(GP_DTYPE_F32) | (d.fp64 ? GP_DTYPE_BIT(GP_DTYPE_F64) : 0u);
    out->may_flush_subnormals = d.flushes_subnormals;
    // CLBlast's kernels are OpenCL C compiled by the device's driver; the GEMMs call no library
    // function, and the opencl profile is the one that describes the device's arithmetic.
    out->math_profile = "opencl";
    out->notes = d.notes.c_str();
  });
}

gp_status open_device(int32_t index, gp_device** out) {
  return guarded([&] { *out = new gp_device(device_at(index)); });
}

void close_device(gp_device* device) { delete device; }

gp_status supports(gp_device*, const gp_op_call* call, char* reason, size_t size) {
  std::string why;
  if (!runs(*call, why) && !copies(*call, why)) {
    std::snprintf(reason, size, "%s", why.c_str());
    return GP_UNSUPPORTED;
  }
  if (call->dtype != GP_DTYPE_F32 && call->dtype != GP_DTYPE_F64) {
    std::snprintf(reason, size, "%s in f32 and f64 only", call->op);
    return GP_UNSUPPORTED;
  }
  return GP_OK;
}

gp_status allocate(gp_device* device, gp_dtype, int64_t bytes, gp_buffer** out) {
  return guarded([&] { *out = new gp_buffer{create_buffer(device->context.get(), bytes), bytes}; });
}

void free_buffer(gp_device*, gp_buffer* buffer) { delete buffer; }

gp_status create_queue(gp_device* device, gp_queue** out) {
  return guarded([&] {
    cl_int status = CL_SUCCESS;
    CommandQueue q(clCreateCommandQueue(device->context.get(), device->id, 0, &status));
    check(status, "clCreateCommandQueue");
    *out = new gp_queue{device, std::move(q)};
  });
}

void destroy_queue(gp_device*, gp_queue* queue) {
  clFinish(queue->queue.get());  // nothing of the queue may outlive it
  delete queue;
}

gp_status upload(gp_queue* q, gp_buffer* dst, const void* src, int64_t bytes) {
  return guarded([&] {
    require_capacity(bytes, dst, "upload");
    if (bytes == 0) return;  // OpenCL refuses empty copies
    check(clEnqueueWriteBuffer(q->queue.get(), dst->memory.get(), CL_TRUE, 0, size_t(bytes), src, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
  });
}

gp_status download(gp_queue* q, const gp_buffer* src, void* dst, int64_t bytes) {
  return guarded([&] {
    require_capacity(bytes, src, "download");
    if (bytes == 0) return;
    check(clEnqueueReadBuffer(q->queue.get(), src->memory.get(), CL_TRUE, 0, size_t(bytes), dst, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  });
}

gp_status forward(gp_queue* q, const gp_op_call* call, const gp_buffer* const* inputs, gp_buffer* out) {
  std::string why;
  if (copies(*call, why)) return guarded([&] { copy_forward(*q, *call, *inputs[0], *out); });
  return guarded([&] { gp_clblast::forward(*q, *call, inputs, *out); });
}

gp_status vjp(gp_queue* q, const gp_op_call* call, const gp_buffer* const* inputs, const gp_buffer*,
              const gp_buffer* dout, gp_buffer* const* grads) {
  std::string why;
  if (copies(*call, why)) return guarded([&] { copy_vjp(*q, *call, *dout, grads[0]); });
  return guarded([&] { gp_clblast::vjp(*q, *call, inputs, *dout, grads); });
}

gp_status finish(gp_queue* q) {
  return guarded([&] { check(clFinish(q->queue.get()), "clFinish"); });
}

gp_status arithmetic_probe(gp_queue* q, gp_buffer* out, gp_dtype dtype, int64_t elements, int32_t steps) {
  bool ran = false;
  const gp_status s = guarded([&] { ran = enqueue_probe(*q, *out, dtype, elements, steps); });
  return s == GP_OK && !ran ? GP_UNSUPPORTED : s;
}

const char* last_error() { return error_text.c_str(); }

}  // namespace

extern "C" {

GP_PLUGIN_EXPORT uint32_t gradparity_plugin_abi_version(void) { return GP_PLUGIN_ABI_VERSION; }

GP_PLUGIN_EXPORT const gp_plugin_api* gradparity_plugin(void) {
  // Serialised: CLBlast 1.5.3 stores compiled programs in process-wide caches that concurrent
  // first calls could corrupt (CNugteren/CLBlast#486, fixed by #495 in 2023, after 1.5.3), and
  // the ones buffer of a device is shared by its queues.
  static const gp_plugin_api api = [] {
    gp_plugin_api table = GP_PLUGIN_API_TABLE("clblast", GP_THREADS_SERIALISED);
    table.arithmetic_probe = arithmetic_probe;
    return table;
  }();
  return &api;
}

}  // extern "C"
