// layer_norm over the last axis on oneDNN's layer normalisation, x viewed as [rows, N]: forward
// is layer_normalization_forward (forward_training, use_scale | use_shift: the weight is oneDNN's
// scale, the bias its shift), the VJP layer_normalization_backward (prop_kind backward: diff_src,
// diff_scale, diff_shift). oneDNN's definition is PyTorch's, the catalog's: the population
// variance, eps inside the square root. The backward reads the rows' mean and variance, which
// the ABI does not keep between calls (the VJP gets x, out and dout): the VJP recomputes them
// with a forward_training run of its own.
// oneDNN 2.6 takes scale and shift (and gives their gradients) in f32 whatever the data type, so
// a bf16 call's weight and bias are converted into f32 scratch by a reorder, and the f32
// gradients converted back to bf16 by another (one rounding, as the catalog's 16-bit contract).
// rms_norm: oneDNN 2.6 has no RMS normalisation (its layer normalisation always subtracts the
// mean, and no flag turns that off): it SKIPs saying so.
#include <string_view>

#include "onednn_ops.hpp"

namespace gp_onednn {
namespace layer_norm_impl {
namespace {

using dnnl::memory;
using dnnl::normalization_flags;

const normalization_flags flags = normalization_flags::use_scale | normalization_flags::use_shift;

// x as [rows, N]: oneDNN normalises over the last dimension of a 2-D to 5-D tensor.
memory::dims rows_by_n(const gp_op_call& c) {
  const memory::dims x = dims_of(c.inputs[0]);
  const memory::dim n = x.back();
  memory::dim rows = 1;
  for (size_t i = 0; i + 1 < x.size(); ++i) rows *= x[i];
  return {rows, n};
}

memory::desc data_desc(const gp_op_call& c) { return plain_desc(rows_by_n(c), c.dtype); }
memory::desc param_desc(const gp_op_call& c, gp_dtype dtype) { return plain_desc(dims_of(c.inputs[1]), dtype); }
float eps(const gp_op_call& c) { return static_cast<float>(c.attrs.eps); }

dnnl::layer_normalization_forward::primitive_desc forward_pd(const dnnl::engine& engine, const gp_op_call& c) {
  const dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_training, data_desc(c), eps(c), flags);
  return {d, engine};
}

dnnl::layer_normalization_backward::primitive_desc backward_pd(const dnnl::engine& engine, const gp_op_call& c) {
  const dnnl::layer_normalization_backward::desc d(dnnl::prop_kind::backward, data_desc(c), data_desc(c), eps(c),
                                                   flags);
  return {d, engine, forward_pd(engine, c)};
}

// One forward_training run: out = layer_norm(x), and the rows' mean and variance (f32, [rows]).
struct ForwardRun {
  std::vector<float> scale_storage, shift_storage;
  memory scale, shift;
  F32Scratch mean, variance;

  ForwardRun(const Exec& e, void* out)
      : scale(as_f32(e, wrap(e, param_desc(e.call, e.call.dtype), e.inputs[1]), scale_storage)),
        shift(as_f32(e, wrap(e, param_desc(e.call, e.call.dtype), e.inputs[2]), shift_storage)),
        mean(e, {rows_by_n(e.call)[0]}),
        variance(e, {rows_by_n(e.call)[0]}) {
    const auto pd = forward_pd(e.engine, e.call);
    dnnl::layer_normalization_forward(pd).execute(e.stream, {{DNNL_ARG_SRC, wrap(e, pd.src_desc(), e.inputs[0])},
                                                             {DNNL_ARG_SCALE, scale},
                                                             {DNNL_ARG_SHIFT, shift},
                                                             {DNNL_ARG_DST, wrap(e, pd.dst_desc(), out)},
                                                             {DNNL_ARG_MEAN, mean.mem},
                                                             {DNNL_ARG_VARIANCE, variance.mem}});
  }
};

void forward(const Exec& e, void* out) { const ForwardRun run(e, out); }

void vjp(const Exec& e, const void*, const void* dout, void* const* grads) {
  const gp_op_call& c = e.call;
  // The recomputed output goes to scratch: the host's `out` is read-only here.
  std::vector<char> y(data_desc(c).get_size()), dx(grads[0] ? 0 : data_desc(c).get_size());
  const ForwardRun fwd(e, y.data());
  F32Scratch dscale(e, dims_of(c.inputs[1])), dshift(e, dims_of(c.inputs[2]));
  const auto pd = backward_pd(e.engine, c);
  dnnl::layer_normalization_backward(pd).execute(
      e.stream, {{DNNL_ARG_SRC, wrap(e, pd.src_desc(), e.inputs[0])},
                 {DNNL_ARG_MEAN, fwd.mean.mem},
                 {DNNL_ARG_VARIANCE, fwd.variance.mem},
                 {DNNL_ARG_DIFF_DST, wrap(e, pd.diff_dst_desc(), dout)},
                 {DNNL_ARG_SCALE, fwd.scale},
                 {DNNL_ARG_SHIFT, fwd.shift},  // not needed, but 2.6 fails (invalid_arguments) without it
                 {DNNL_ARG_DIFF_SRC, wrap(e, pd.diff_src_desc(), grads[0] ? grads[0] : dx.data())},
                 {DNNL_ARG_DIFF_SCALE, dscale.mem},
                 {DNNL_ARG_DIFF_SHIFT, dshift.mem}});
  if (grads[1]) run_reorder(e, dscale.mem, wrap(e, param_desc(c, c.dtype), grads[1]));
  if (grads[2]) run_reorder(e, dshift.mem, wrap(e, param_desc(c, c.dtype), grads[2]));
}

bool has(const char* op) { return std::string_view(op) == "layer_norm" || std::string_view(op) == "rms_norm"; }

std::optional<std::string> cannot_run(const dnnl::engine& engine, const gp_op_call& c) {
  if (op_is(c, "rms_norm"))
    return "oneDNN 2.6 has no RMS normalisation (its layer normalisation always subtracts the mean)";
  return creation_failure([&] { backward_pd(engine, c); });
}

}  // namespace
}  // namespace layer_norm_impl

const Family layer_norm_family{layer_norm_impl::has, layer_norm_impl::cannot_run, layer_norm_impl::forward,
                               layer_norm_impl::vjp};

}  // namespace gp_onednn
