// The C ABI of include/gradparity/plugin.h around the op families of onednn_ops.hpp: one CPU
// engine per opened device, one oneDNN stream per queue, buffers in host memory. No exception
// crosses the boundary: every oneDNN error becomes GP_ERROR with the text in last_error().
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "onednn_ops.hpp"

using namespace gp_onednn;

namespace {

// The host reads the error text on the failing call's thread (any contract but serialised).
thread_local char error_text[512];

gp_status fail(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(error_text, sizeof error_text, fmt, args);
  va_end(args);
  return GP_ERROR;
}

// Runs `body`, turning every exception into GP_ERROR with its text.
template <class Body>
gp_status guarded(const char* what, const gp_op_call* call, Body&& body) {
  try {
    body();
    return GP_OK;
  } catch (const dnnl::error& err) {
    return fail("%s: %s (dnnl_status %d)%s%s", what, err.what(), static_cast<int>(err.status), call ? " in " : "",
                call ? call->op : "");
  } catch (const std::exception& err) {
    return fail("%s: %s", what, err.what());
  }
}

constexpr const Family* families[] = {&eltwise_family,    &softmax_family,   &matmul_family, &binary_family,
                                      &layer_norm_family, &reduction_family, &reshape_family};

const Family* family_of(const char* op) {
  for (const Family* f : families)
    if (f->has(op)) return f;
  return nullptr;
}

}  // namespace

struct gp_device {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
};
struct gp_queue {
  gp_device* device;
  dnnl::stream stream;
};
struct gp_buffer {
  int64_t bytes;
  void* data;
};

namespace {

int32_t device_count() { return static_cast<int32_t>(dnnl::engine::get_count(dnnl::engine::kind::cpu)); }

gp_status device_info(int32_t index, gp_device_info* out) {
  if (index != 0) return fail("no device %d", index);
  static char api_version[64];
  const dnnl_version_t* v = dnnl_version();
  std::snprintf(api_version, sizeof api_version, "oneDNN %d.%d.%d (%.12s)", v->major, v->minor, v->patch, v->hash);
  out->name = "oneDNN CPU engine";
  out->driver = "oneDNN (libdnnl), its JIT kernels for this CPU's ISA";
  out->api_version = api_version;
  out->dtypes = GP_DTYPE_BIT(GP_DTYPE_F32) | GP_DTYPE_BIT(GP_DTYPE_BF16);
  out->may_flush_subnormals = 0;
  // The closest profile gradparity has; docs/plugins-onednn.md measures oneDNN's eltwise against it.
  out->math_profile = "cpu";
  out->notes =
      "oneDNN primitives: eltwise, softmax/logsoftmax, matmul, inner product, binary, reduction, layer normalisation";
  return GP_OK;
}

gp_status open_device(int32_t index, gp_device** out) {
  if (index != 0) return fail("no device %d", index);
  return guarded("dnnl::engine(cpu, 0)", nullptr, [&] { *out = new gp_device; });
}

void close_device(gp_device* device) { delete device; }

gp_status supports(gp_device* device, const gp_op_call* call, char* reason, size_t size) {
  const Family* family = family_of(call->op);
  if (!family) return GP_UNSUPPORTED;
  if (data_type(call->dtype) == dnnl::memory::data_type::undef) {
    std::snprintf(reason, size, "oneDNN's CPU engine runs f32 and bf16 only");
    return GP_UNSUPPORTED;
  }
  std::optional<std::string> why;
  const gp_status s = guarded("supports", call, [&] {
    why = shape_rule_problem(*call);
    if (!why) why = family->cannot_run(device->engine, *call);
  });
  if (s != GP_OK) return s;
  if (!why) return GP_OK;
  std::snprintf(reason, size, "%s", why->c_str());
  return GP_UNSUPPORTED;
}

gp_status allocate(gp_device*, gp_dtype, int64_t bytes, gp_buffer** out) {
  // 64-byte alignment: what oneDNN's JIT kernels prefer for their vector loads.
  void* data = std::aligned_alloc(64, (static_cast<size_t>(bytes) + 63) / 64 * 64 + 64);
  if (!data) return fail("cannot allocate %lld bytes", static_cast<long long>(bytes));
  *out = new (std::nothrow) gp_buffer{bytes, data};
  if (!*out) return std::free(data), fail("out of host memory");
  return GP_OK;
}

void free_buffer(gp_device*, gp_buffer* buffer) {
  std::free(buffer->data);
  delete buffer;
}

gp_status create_queue(gp_device* device, gp_queue** out) {
  return guarded("dnnl::stream", nullptr, [&] { *out = new gp_queue{device, dnnl::stream(device->engine)}; });
}

void destroy_queue(gp_device*, gp_queue* queue) { delete queue; }

gp_status copy(void* dst, const void* src, int64_t bytes, int64_t capacity, const char* what) {
  if (bytes > capacity)
    return fail("%s of %lld bytes into a buffer of %lld", what, static_cast<long long>(bytes),
                static_cast<long long>(capacity));
  std::memcpy(dst, src, static_cast<size_t>(bytes));
  return GP_OK;
}

gp_status upload(gp_queue*, gp_buffer* dst, const void* src, int64_t bytes) {
  return copy(dst->data, src, bytes, dst->bytes, "upload");
}

gp_status download(gp_queue* q, const gp_buffer* src, void* dst, int64_t bytes) {
  const gp_status s = guarded("dnnl::stream::wait", nullptr, [&] { q->stream.wait(); });
  return s != GP_OK ? s : copy(dst, src->data, bytes, src->bytes, "download");
}

std::vector<const void*> data_of(const gp_op_call* call, const gp_buffer* const* inputs) {
  std::vector<const void*> d(static_cast<size_t>(call->input_count));
  for (size_t k = 0; k < d.size(); ++k) d[k] = inputs[k]->data;
  return d;
}

gp_status forward(gp_queue* q, const gp_op_call* call, const gp_buffer* const* inputs, gp_buffer* out) {
  return guarded("forward", call, [&] {
    const auto in = data_of(call, inputs);
    family_of(call->op)->forward(Exec{q->device->engine, q->stream, *call, in.data()}, out->data);
  });
}

gp_status vjp(gp_queue* q, const gp_op_call* call, const gp_buffer* const* inputs, const gp_buffer* out,
              const gp_buffer* dout, gp_buffer* const* grads) {
  return guarded("vjp", call, [&] {
    const auto in = data_of(call, inputs);
    std::vector<void*> g(static_cast<size_t>(call->input_count));
    for (size_t k = 0; k < g.size(); ++k) g[k] = grads[k] ? grads[k]->data : nullptr;
    family_of(call->op)->vjp(Exec{q->device->engine, q->stream, *call, in.data()}, out->data, dout->data, g.data());
  });
}

gp_status finish(gp_queue* q) {
  return guarded("dnnl::stream::wait", nullptr, [&] { q->stream.wait(); });
}

const char* last_error() { return error_text; }

gp_status arithmetic_probe(gp_queue* q, gp_buffer* out, gp_dtype dtype, int64_t elements, int32_t steps) {
  if (elements * (dtype == GP_DTYPE_F64 ? 8 : 4) > out->bytes) return fail("arithmetic probe: buffer too small");
  bool ran = false;
  const gp_status s = guarded("arithmetic probe", nullptr, [&] {
    q->stream.wait();  // in order after the queue's work
    ran = run_arithmetic_probe(out->data, dtype, elements, steps);
  });
  return s == GP_OK && !ran ? GP_UNSUPPORTED : s;
}

// The backwards that compute from the forward's value: oneDNN's softmax and logsoftmax backward
// primitives read dst (softmax.cpp), div's gradient of the divisor is -(g out) / y (binary.cpp),
// and the eltwise backward from src of tanh and logistic forms 1 - tanh^2 and s (1 - s) of the
// value it recomputes (eltwise.cpp; FAILs in saturation without this declaration).
const char* backward_reads_output(int32_t) { return "tanh,sigmoid,div,softmax,log_softmax"; }

}  // namespace

extern "C" GP_PLUGIN_EXPORT uint32_t gradparity_plugin_abi_version(void) { return GP_PLUGIN_ABI_VERSION; }

// Thread safety: oneDNN documents engines and primitives as safe to use from several threads and
// a stream as one thread's; here every queue owns its stream, primitives are created per call and
// nothing else is shared, so queue work on different queues may run at once. The remaining
// functions are kept serialised by the host (queue per thread), which is all the host needs.
extern "C" GP_PLUGIN_EXPORT const gp_plugin_api* gradparity_plugin(void) {
  static const gp_plugin_api api = [] {
    gp_plugin_api table = GP_PLUGIN_API_TABLE("onednn", GP_THREADS_QUEUE_PER_THREAD);
    table.arithmetic_probe = arithmetic_probe;
    table.backward_reads_output = backward_reads_output;
    return table;
  }();
  return &api;
}
