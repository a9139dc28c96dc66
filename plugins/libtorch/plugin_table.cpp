// The C ABI of include/gradparity/plugin.h around torch_ops.hpp: one CPU device, buffers in host
// memory, queues that run each call when it is made. A forward is the op's row under
// NoGradGuard; a VJP is autograd over the same row (torch::autograd::grad with the cotangent as
// grad_outputs), so every backward is PyTorch's own. No exception crosses the boundary.
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/version.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "torch_ops.hpp"

using namespace gp_libtorch;

namespace {

// The host reads the error text on the failing call's thread (the contract is full).
thread_local char error_text[1024];

gp_status fail(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(error_text, sizeof error_text, fmt, args);
  va_end(args);
  return GP_ERROR;
}

// Runs `body`, turning every exception into GP_ERROR with its text (PyTorch's without the C++
// backtrace it appends).
template <class Body>
gp_status guarded(const char* what, const gp_op_call* call, Body&& body) {
  try {
    body();
    return GP_OK;
  } catch (const c10::Error& err) {
    return fail("%s: %s%s%s", what, err.what_without_backtrace(), call ? " in " : "", call ? call->case_id : "");
  } catch (const std::exception& err) {
    return fail("%s: %s%s%s", what, err.what(), call ? " in " : "", call ? call->case_id : "");
  }
}

const OpRow& row_of(const gp_op_call& call) {
  const OpRow* row = find_row(call.op);
  if (!row || !row->forward) throw std::invalid_argument(std::string("no PyTorch mapping for ") + call.op);
  return *row;
}

// The forward's result where the output goes, after checking that it is the call's tensor.
void store(const gp_op_call& call, const at::Tensor& result, void* out) {
  if (result.sizes() != at::IntArrayRef(sizes_of(call.output)) || result.scalar_type() != scalar_type(call.dtype))
    throw std::invalid_argument("PyTorch's result is " + std::string(result.toString()) + " of shape " +
                                c10::str(result.sizes()) + ", not the call's output");
  wrap(call.output, out).copy_(result);
}

// Autograd's gradients of `row` at `inputs` for the cotangent `dout`; an undefined tensor where
// `wanted[k]` is false or the output does not depend on input k.
std::vector<at::Tensor> gradients(const gp_op_call& call, Tensors inputs, const at::Tensor& dout,
                                  const std::vector<bool>& wanted) {
  std::vector<at::Tensor> by_input(inputs.size());
  if (std::find(wanted.begin(), wanted.end(), true) == wanted.end()) return by_input;  // a forward-only op
  at::AutoGradMode enable_grad(true);
  std::vector<at::Tensor> leaves;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (wanted[k]) {
      inputs[k] = inputs[k].detach().requires_grad_(true);
      leaves.push_back(inputs[k]);
    }
  const at::Tensor out = row_of(call).forward(call, inputs);
  const auto grads = torch::autograd::grad({out}, leaves, {dout}, /*retain_graph=*/false, /*create_graph=*/false,
                                           /*allow_unused=*/true);
  for (size_t k = 0, g = 0; k < inputs.size(); ++k)
    if (wanted[k]) by_input[k] = grads[g++];
  return by_input;
}

// Runs the call on zero-filled inputs, forward and backward, so that what PyTorch refuses (a
// shape, an axis, a dtype its CPU kernels lack) is a SKIP with its message instead of an ERROR
// later. Calls above this many elements are left to the real call: a dry run would double them.
constexpr int64_t kDryRunElements = int64_t{1} << 22;

void dry_run(const gp_op_call& call) {
  int64_t elements = 0;
  for (int k = 0; k < call.input_count; ++k) elements += c10::multiply_integers(sizes_of(call.inputs[k]));
  if (elements > kDryRunElements) return;
  Tensors inputs;
  std::vector<bool> wanted;
  for (int k = 0; k < call.input_count; ++k) {
    inputs.push_back(at::zeros(sizes_of(call.inputs[k]), at::TensorOptions().dtype(scalar_type(call.inputs[k].dtype))));
    wanted.push_back(call.inputs[k].dtype != GP_DTYPE_I32);
  }
  at::Tensor out;
  {
    at::NoGradGuard no_grad;
    out = row_of(call).forward(call, inputs);
  }
  std::vector<char> scratch(static_cast<size_t>(out.nbytes()) + 1);
  store(call, out, scratch.data());
  if (!row_of(call).forward_only) gradients(call, inputs, at::zeros_like(out), wanted);
}

}  // namespace

struct gp_device {
  int32_t index;
};
struct gp_queue {
  gp_device* device;
};
struct gp_buffer {
  int64_t bytes;
  void* data;
};

namespace {

int32_t device_count() { return 1; }

gp_status device_info(int32_t index, gp_device_info* out) {
  if (index != 0) return fail("no device %d", index);
  // Made once: under the full contract two threads may ask at the same time.
  static const std::string notes = "PyTorch " TORCH_VERSION " CPU kernels through ATen, every VJP from autograd; " +
                                   std::to_string(at::get_num_threads()) + " intra-op threads";
  out->name = "PyTorch CPU (ATen)";
  out->driver = "libtorch " TORCH_VERSION " (Debian libtorch-dev)";
  out->api_version = "ATen " TORCH_VERSION;
  out->dtypes = GP_DTYPE_BIT(GP_DTYPE_F16) | GP_DTYPE_BIT(GP_DTYPE_BF16) | GP_DTYPE_BIT(GP_DTYPE_F32) |
                GP_DTYPE_BIT(GP_DTYPE_F64) | GP_DTYPE_BIT(GP_DTYPE_I32);
  out->may_flush_subnormals = 0;  // torch.set_flush_denormal is off unless a user turns it on
  // PyTorch's vectorised CPU math is SLEEF's 1-ULP functions and glibc's libm for the rest: the
  // cpu profile is the closest gradparity has (docs/plugins-libtorch.md).
  out->math_profile = "cpu";
  out->notes = notes.c_str();
  return GP_OK;
}

gp_status open_device(int32_t index, gp_device** out) {
  if (index != 0) return fail("no device %d", index);
  *out = new (std::nothrow) gp_device{index};
  return *out ? GP_OK : fail("out of host memory");
}

void close_device(gp_device* device) { delete device; }

gp_status supports(gp_device*, const gp_op_call* call, char* reason, size_t size) {
  const auto refuse = [&](const std::string& why) {
    std::snprintf(reason, size, "%s", why.c_str());
    return GP_UNSUPPORTED;
  };
  const OpRow* row = find_row(call->op);
  if (!row) return refuse("no mapping onto PyTorch for this op");
  if (!row->forward) return refuse(std::string(row->absent));
  try {
    if (auto problem = refused_by_catalog(*call)) return refuse("invalid call: " + *problem);
    dry_run(*call);
  } catch (const c10::Error& err) {
    const std::string text = err.what_without_backtrace();
    return refuse("PyTorch refuses the call: " + text.substr(0, text.find('\n')));
  } catch (const std::exception& err) {
    return refuse(std::string("PyTorch refuses the call: ") + err.what());
  }
  return GP_OK;
}

gp_status allocate(gp_device*, gp_dtype, int64_t bytes, gp_buffer** out) {
  void* data = std::malloc(static_cast<size_t>(bytes > 0 ? bytes : 1));
  if (!data) return fail("out of host memory: %lld bytes", static_cast<long long>(bytes));
  *out = new (std::nothrow) gp_buffer{bytes, data};
  if (*out) return GP_OK;
  std::free(data);
  return fail("out of host memory");
}

void free_buffer(gp_device*, gp_buffer* buffer) {
  std::free(buffer->data);
  delete buffer;
}

gp_status create_queue(gp_device* device, gp_queue** out) {
  *out = new (std::nothrow) gp_queue{device};
  return *out ? GP_OK : fail("out of host memory");
}

void destroy_queue(gp_device*, gp_queue* queue) { delete queue; }

gp_status upload(gp_queue*, gp_buffer* dst, const void* src, int64_t bytes) {
  if (bytes > dst->bytes)
    return fail("upload of %lld bytes into a buffer of %lld", static_cast<long long>(bytes),
                static_cast<long long>(dst->bytes));
  std::memcpy(dst->data, src, static_cast<size_t>(bytes));
  return GP_OK;
}

gp_status download(gp_queue*, const gp_buffer* src, void* dst, int64_t bytes) {
  if (bytes > src->bytes)
    return fail("download of %lld bytes from a buffer of %lld", static_cast<long long>(bytes),
                static_cast<long long>(src->bytes));
  std::memcpy(dst, src->data, static_cast<size_t>(bytes));
  return GP_OK;
}

Tensors wrap_inputs(const gp_op_call& call, const gp_buffer* const* inputs) {
  Tensors t;
  for (int k = 0; k < call.input_count; ++k) t.push_back(wrap_input(call, k, inputs[k]->data));
  return t;
}

gp_status forward(gp_queue*, const gp_op_call* call, const gp_buffer* const* inputs, gp_buffer* out) {
  return guarded("forward", call, [&] {
    at::NoGradGuard no_grad;
    store(*call, row_of(*call).forward(*call, wrap_inputs(*call, inputs)), out->data);
  });
}

gp_status vjp(gp_queue*, const gp_op_call* call, const gp_buffer* const* inputs, const gp_buffer*,
              const gp_buffer* dout, gp_buffer* const* grads) {
  return guarded("vjp", call, [&] {
    std::vector<bool> wanted;
    for (int k = 0; k < call->input_count; ++k) wanted.push_back(grads[k] != nullptr);
    const auto g = gradients(*call, wrap_inputs(*call, inputs), wrap(call->output, dout->data), wanted);
    for (int k = 0; k < call->input_count; ++k) {
      if (!grads[k]) continue;
      at::Tensor target = wrap(call->inputs[k], grads[k]->data);
      if (g[k].defined())
        target.copy_(g[k]);
      else
        target.zero_();  // autograd: the output does not depend on this input
    }
  });
}

gp_status finish(gp_queue*) { return GP_OK; }  // every call has run when it returns

gp_status arithmetic_probe(gp_queue*, gp_buffer* out, gp_dtype dtype, int64_t elements, int32_t steps) {
  if (elements * (dtype == GP_DTYPE_F64 ? 8 : 4) > out->bytes) return fail("arithmetic probe: buffer too small");
  bool ran = false;
  const gp_status s =
      guarded("arithmetic probe", nullptr, [&] { ran = run_arithmetic_probe(out->data, dtype, elements, steps); });
  return s == GP_OK && !ran ? GP_UNSUPPORTED : s;
}

const char* last_error() { return error_text; }

// PyTorch 1.13's derivatives.yaml computes these backwards from the forward's result: tanh's
// and sigmoid's *_backward(grad, result), exp's grad * result, expm1's grad * (result + 1), sqrt's
// grad / (2 result), rsqrt's and reciprocal's powers of result, softmax's and log_softmax's
// *_backward_data(grad, output), logsumexp's exp(self - result), pow's exponent gradient
// grad * result * log(self), and gru_cell's gates through sigmoid and tanh.
const char* backward_reads_output(int32_t) {
  return "tanh,sigmoid,exp,expm1,sqrt,rsqrt,reciprocal,softmax,log_softmax,logsumexp,pow,gru_cell";
}

}  // namespace

extern "C" {

GP_PLUGIN_EXPORT uint32_t gradparity_plugin_abi_version(void) { return GP_PLUGIN_ABI_VERSION; }

GP_PLUGIN_EXPORT const gp_plugin_api* gradparity_plugin(void) {
  static const gp_plugin_api api = [] {
    gp_plugin_api a = GP_PLUGIN_API_TABLE("libtorch", GP_THREADS_FULL);
    a.backward_reads_output = backward_reads_output;
    a.arithmetic_probe = arithmetic_probe;
    a.strided_inputs = 1;  // wrap_input: PyTorch's strided views of the buffers
    return a;
  }();
  return &api;
}

}  // extern "C"
