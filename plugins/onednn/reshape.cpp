// reshape as oneDNN's reorder between two dense descriptors of the same elements (a copy), forward
// and VJP. `gradparity bench` times a reshape as the device's copy bandwidth (docs/bench.md):
// without it the plugin's rows get no fraction of a limit.
#include "onednn_ops.hpp"

namespace gp_onednn {
namespace reshape_impl {
namespace {

int64_t elements(const gp_tensor_desc& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.rank; ++i) n *= t.dims[i];
  return n;
}

// Both ends as one dimension of the call's element count: the copy the reshape is.
dnnl::memory flat(const Exec& e, const void* data) {
  return wrap(e, plain_desc(dnnl::memory::dims{elements(e.call.output)}, e.call.dtype), data);
}

bool has(const char* op) { return std::string_view(op) == "reshape"; }

std::optional<std::string> cannot_run(const dnnl::engine&, const gp_op_call&) { return std::nullopt; }

void forward(const Exec& e, void* out) { run_reorder(e, flat(e, e.inputs[0]), flat(e, out)); }

void vjp(const Exec& e, const void*, const void* dout, void* const* grads) {
  if (!grads[0] || elements(e.call.output) == 0) return;
  run_reorder(e, flat(e, dout), flat(e, grads[0]));
}

}  // namespace
}  // namespace reshape_impl

const Family reshape_family{reshape_impl::has, reshape_impl::cannot_run, reshape_impl::forward, reshape_impl::vjp};

}  // namespace gp_onednn
