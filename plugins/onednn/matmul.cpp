// matmul ([m,k]·[k,n], or batched [B,m,k]·[B,k,n]) on oneDNN's matmul primitive, and linear
// (x[m,k]·Wᵀ + b) on its inner product. oneDNN has no matmul backward: the gradients are two
// more matmuls, dA = dC·Bᵀ and dB = Aᵀ·dC, the transposes being strided views of the row-major
// tensors. linear's gradients are inner_product_backward_data and _weights (which also gives db).
#include "onednn_ops.hpp"

namespace gp_onednn {
namespace matmul_impl {
namespace {

using dnnl::memory;

// The last two dimensions of a row-major tensor of dims [.., r, c] read as its transpose [.., c, r].
memory::desc transposed_view(memory::dims dims, gp_dtype dtype) {
  const size_t n = dims.size();
  const memory::dim r = dims[n - 2], c = dims[n - 1];
  memory::dims strides(n, r * c);
  strides[n - 1] = c;
  strides[n - 2] = 1;
  std::swap(dims[n - 2], dims[n - 1]);
  return memory::desc(dims, data_type(dtype), strides);
}

// An input of a matmul: its layout and its data.
struct Operand {
  memory::desc desc;
  const void* data;
};

void run_matmul(const Exec& e, const Operand& a, const Operand& b, const memory::desc& c, void* pc) {
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a.desc, b.desc, c), e.engine);
  dnnl::matmul(pd).execute(e.stream, {{DNNL_ARG_SRC, wrap(e, a.desc, a.data)},
                                      {DNNL_ARG_WEIGHTS, wrap(e, b.desc, b.data)},
                                      {DNNL_ARG_DST, wrap(e, c, pc)}});
}

void matmul_forward(const Exec& e, void* out) {
  const gp_op_call& c = e.call;
  run_matmul(e, {plain_desc(c.inputs[0], c.dtype), e.inputs[0]}, {plain_desc(c.inputs[1], c.dtype), e.inputs[1]},
             plain_desc(c.output, c.dtype), out);
}

void matmul_vjp(const Exec& e, const void* dout, void* const* grads) {
  const gp_op_call& c = e.call;
  const memory::desc g = plain_desc(c.output, c.dtype);
  if (grads[0])
    run_matmul(e, {g, dout}, {transposed_view(dims_of(c.inputs[1]), c.dtype), e.inputs[1]},
               plain_desc(c.inputs[0], c.dtype), grads[0]);
  if (grads[1])
    run_matmul(e, {transposed_view(dims_of(c.inputs[0]), c.dtype), e.inputs[0]}, {g, dout},
               plain_desc(c.inputs[1], c.dtype), grads[1]);
}

// linear: src x [m,k], weights W [n,k] (oneDNN's [oc, ic]), bias [n], dst [m,n].
struct LinearDescs {
  memory::desc x, w, b, y;
  explicit LinearDescs(const gp_op_call& c)
      : x(plain_desc(c.inputs[0], c.dtype)),
        w(plain_desc(c.inputs[1], c.dtype)),
        b(plain_desc(c.inputs[2], c.dtype)),
        y(plain_desc(c.output, c.dtype)) {}
};

dnnl::inner_product_forward::primitive_desc linear_forward_pd(const dnnl::engine& engine, const LinearDescs& d) {
  return {dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_training, d.x, d.w, d.b, d.y), engine};
}

void linear_forward(const Exec& e, void* out) {
  const LinearDescs d(e.call);
  dnnl::inner_product_forward(linear_forward_pd(e.engine, d))
      .execute(e.stream, {{DNNL_ARG_SRC, wrap(e, d.x, e.inputs[0])},
                          {DNNL_ARG_WEIGHTS, wrap(e, d.w, e.inputs[1])},
                          {DNNL_ARG_BIAS, wrap(e, d.b, e.inputs[2])},
                          {DNNL_ARG_DST, wrap(e, d.y, out)}});
}

void linear_vjp(const Exec& e, const void* dout, void* const* grads) {
  const LinearDescs d(e.call);
  const auto hint = linear_forward_pd(e.engine, d);
  if (grads[0]) {
    const dnnl::inner_product_backward_data::primitive_desc pd({d.x, d.w, d.y}, e.engine, hint);
    dnnl::inner_product_backward_data(pd).execute(e.stream, {{DNNL_ARG_DIFF_DST, wrap(e, d.y, dout)},
                                                             {DNNL_ARG_WEIGHTS, wrap(e, d.w, e.inputs[1])},
                                                             {DNNL_ARG_DIFF_SRC, wrap(e, d.x, grads[0])}});
  }
  if (grads[1] || grads[2]) {
    // Both gradients come from one primitive; a missing one goes to scratch.
    std::vector<char> scratch_w(grads[1] ? 0 : d.w.get_size()), scratch_b(grads[2] ? 0 : d.b.get_size());
    const dnnl::inner_product_backward_weights::primitive_desc pd({d.x, d.w, d.b, d.y}, e.engine, hint);
    dnnl::inner_product_backward_weights(pd).execute(
        e.stream, {{DNNL_ARG_SRC, wrap(e, d.x, e.inputs[0])},
                   {DNNL_ARG_DIFF_DST, wrap(e, d.y, dout)},
                   {DNNL_ARG_DIFF_WEIGHTS, wrap(e, d.w, grads[1] ? grads[1] : scratch_w.data())},
                   {DNNL_ARG_DIFF_BIAS, wrap(e, d.b, grads[2] ? grads[2] : scratch_b.data())}});
  }
}

bool is_linear(const gp_op_call& c) { return op_is(c, "linear"); }

bool has(const char* op) { return std::string_view(op) == "matmul" || std::string_view(op) == "linear"; }

// oneDNN 2.6.3's matmul primitive descriptor raises SIGFPE inside libdnnl when M, K or N is 0
// (a 17-line program creating one for [0, 5]·[5, 3] or [4, 0]·[0, 3] crashes the same way), so
// such a call is refused before one is created (docs/plugins-onednn.md, "Empty tensors").
bool has_zero_dimension(const gp_op_call& c) {
  for (const gp_tensor_desc& t : {c.inputs[0], c.inputs[1], c.output})
    for (int32_t i = 0; i < t.rank; ++i)
      if (t.dims[i] == 0) return true;
  return false;
}

std::optional<std::string> cannot_run(const dnnl::engine& engine, const gp_op_call& c) {
  if (!is_linear(c) && has_zero_dimension(c))
    return "oneDNN 2.6's matmul primitive crashes (SIGFPE) on a zero dimension; refused";
  if (!is_linear(c))
    return creation_failure([&] {
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(plain_desc(c.inputs[0], c.dtype),
                                                      plain_desc(c.inputs[1], c.dtype), plain_desc(c.output, c.dtype)),
                                   engine);
    });
  return creation_failure([&] {
    const LinearDescs d(c);
    const auto hint = linear_forward_pd(engine, d);
    dnnl::inner_product_backward_data::primitive_desc({d.x, d.w, d.y}, engine, hint);
    dnnl::inner_product_backward_weights::primitive_desc({d.x, d.w, d.b, d.y}, engine, hint);
  });
}

void forward(const Exec& e, void* out) { is_linear(e.call) ? linear_forward(e, out) : matmul_forward(e, out); }

void vjp(const Exec& e, const void*, const void* dout, void* const* grads) {
  is_linear(e.call) ? linear_vjp(e, dout, grads) : matmul_vjp(e, dout, grads);
}

}  // namespace
}  // namespace matmul_impl

const Family matmul_family{matmul_impl::has, matmul_impl::cannot_run, matmul_impl::forward, matmul_impl::vjp};

}  // namespace gp_onednn
