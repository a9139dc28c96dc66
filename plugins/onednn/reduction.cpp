// sum, mean and max over one axis on oneDNN's reduction primitive, the input viewed as
// [outer, n, inner] and the output as [outer, 1, inner] (keepdim or not, the same memory; inner
// dropped when 1).
// oneDNN has no reduction backward: the gradient is composed of binary steps in f32 scratch of
// the input's shape, then converted to the call's dtype by a reorder (a copy in f32):
//   sum:  0 + dout, dout broadcast over the axis: exact.
//   mean: (0 + dout) / n by binary_div against a one-element n (exact in f32 for n < 2^24): one
//         IEEE division, so dout/n correctly rounded, half an ULP from the reference's dy/n.
//         (eltwise_linear with alpha 1/n would round twice: 1/n, then the product.)
//   max:  [x == out] · (dout / k), out and dout broadcast, k = the row's sum of [x == out] by a
//         reduction_sum: the maximum is an element of x, compared exactly, and k tied maxima
//         share the cotangent evenly (one of the readings the catalog accepts at a tie,
//         docs/error-model.md "On a kink"; each copy took the whole cotangent before).
// A row of one element is its own sum, mean and maximum; oneDNN's reduction refuses dims that
// reduce nothing ("could not create a reduction descriptor"), so a reorder copies it.
// logsumexp and variance are catalog reductions oneDNN has no primitive for: they SKIP saying so.
#include <string_view>

#include "onednn_ops.hpp"

namespace gp_onednn {
namespace reduction_impl {
namespace {

using dnnl::algorithm;
using dnnl::memory;

struct ReductionOp {
  const char* name;
  algorithm algo;
};
constexpr ReductionOp ops[] = {
    {"sum", algorithm::reduction_sum}, {"mean", algorithm::reduction_mean}, {"max", algorithm::reduction_max}};
constexpr const char* absent[] = {"logsumexp", "variance"};

const ReductionOp* find(const char* name) {
  for (const ReductionOp& op : ops)
    if (std::string_view(op.name) == name) return &op;
  return nullptr;
}

// Input 0 as [outer, n, inner] around the reduced axis, or [outer, n] when the axis is the
// innermost: oneDNN 2.6 has a JIT reduction for trailing reduced dimensions only, and takes its
// reference implementation for [outer, n, 1] as for any inner > 1.
memory::dims split_dims(const gp_op_call& c) {
  const memory::dims in = dims_of(c.inputs[0]);
  const size_t axis = static_cast<size_t>(axis_of(c));
  memory::dim outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= in[i];
  for (size_t i = axis + 1; i < in.size(); ++i) inner *= in[i];
  if (inner == 1) return {outer, in[axis]};
  return {outer, in[axis], inner};
}

memory::dims reduced_dims(const gp_op_call& c) {
  memory::dims d = split_dims(c);
  d[1] = 1;
  return d;
}

dnnl::reduction::primitive_desc forward_pd(const dnnl::engine& engine, const gp_op_call& c) {
  const dnnl::reduction::desc d(find(c.op)->algo, plain_desc(split_dims(c), c.dtype),
                                plain_desc(reduced_dims(c), c.dtype), 0.f, 0.f);
  return {d, engine};
}

void forward(const Exec& e, void* out) {
  if (split_dims(e.call)[1] == 1) {  // oneDNN refuses a reduction that reduces nothing: a copy
    const memory::desc d = plain_desc(reduced_dims(e.call), e.call.dtype);
    return run_reorder(e, wrap(e, d, e.inputs[0]), wrap(e, d, out));
  }
  const auto pd = forward_pd(e.engine, e.call);
  dnnl::reduction(pd).execute(
      e.stream, {{DNNL_ARG_SRC, wrap(e, pd.src_desc(), e.inputs[0])}, {DNNL_ARG_DST, wrap(e, pd.dst_desc(), out)}});
}

void vjp(const Exec& e, const void* out, const void* dout, void* const* grads) {
  if (!grads[0]) return;
  const gp_op_call& c = e.call;
  const memory::desc full_desc = plain_desc(split_dims(c), c.dtype), row_desc = plain_desc(reduced_dims(c), c.dtype);
  std::vector<float> dout32, out32, x32;
  const memory g = as_f32(e, wrap(e, row_desc, dout), dout32);
  F32Scratch full(e, split_dims(c));
  if (op_is(c, "max")) {
    run_binary(e, algorithm::binary_eq, as_f32(e, wrap(e, full_desc, e.inputs[0]), x32),
               as_f32(e, wrap(e, row_desc, out), out32), full.mem);
    if (split_dims(c)[1] > 1) {  // a row of one element is its own maximum: k = 1
      F32Scratch share(e, reduced_dims(c));
      const dnnl::reduction::desc count(algorithm::reduction_sum, full.mem.get_desc(), share.mem.get_desc(), 0.f, 0.f);
      dnnl::reduction({count, e.engine}).execute(e.stream, {{DNNL_ARG_SRC, full.mem}, {DNNL_ARG_DST, share.mem}});
      // No entry equals a maximum oneDNN reports below the row's (-FLT_MAX for a row of -inf, its
      // special-values finding): k = 0 there, kept at 1 so that the gradient stays 0, not 0 / 0.
      const F32Scratch one(e, memory::dims(split_dims(c).size(), 1), 1.f);
      run_binary(e, algorithm::binary_max, share.mem, one.mem, share.mem);
      run_binary(e, algorithm::binary_div, g, share.mem, share.mem);
      run_binary(e, algorithm::binary_mul, full.mem, share.mem, full.mem);
    } else {
      run_binary(e, algorithm::binary_mul, full.mem, g, full.mem);
    }
  } else {
    run_binary(e, algorithm::binary_add, full.mem, g, full.mem);
    if (op_is(c, "mean")) {
      const F32Scratch n(e, memory::dims(split_dims(c).size(), 1), static_cast<float>(split_dims(c)[1]));
      run_binary(e, algorithm::binary_div, full.mem, n.mem, full.mem);
    }
  }
  run_reorder(e, full.mem, wrap(e, full_desc, grads[0]));
}

bool has(const char* op) {
  for (const char* name : absent)
    if (std::string_view(name) == op) return true;
  return find(op) != nullptr;
}

std::optional<std::string> cannot_run(const dnnl::engine& engine, const gp_op_call& c) {
  if (!find(c.op))
    return std::string("oneDNN 2.6 has no ") + c.op +
           " primitive (its reduction algorithms: max, min, sum, mul, mean, norm_lp_*)";
  if (split_dims(c)[1] == 1) return std::nullopt;
  return creation_failure([&] { forward_pd(engine, c); });
}

}  // namespace
}  // namespace reduction_impl

const Family reduction_family{reduction_impl::has, reduction_impl::cannot_run, reduction_impl::forward,
                              reduction_impl::vjp};

}  // namespace gp_onednn
