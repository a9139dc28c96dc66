// Unary catalog ops that are oneDNN eltwise algorithms. The forward is eltwise_forward; the VJP
// is eltwise_backward from the source (diff_src = dout * f'(src)), each over the tensor flattened
// to one dimension (eltwise ops ignore shape).
#include <cstring>

#include "onednn_ops.hpp"

namespace gp_onednn {
namespace eltwise_impl {
namespace {

using dnnl::algorithm;

float zero(const gp_op_attrs&) { return 0.f; }
float catalog_alpha(const gp_op_attrs& a) { return static_cast<float>(a.alpha); }
float catalog_p(const gp_op_attrs& a) { return static_cast<float>(a.p); }
float one(const gp_op_attrs&) { return 1.f; }  // swish(x) = x * sigmoid(alpha x): silu is alpha 1
float minus_one(const gp_op_attrs&) { return -1.f; }

struct EltwiseOp {
  const char* name;
  algorithm (*algo)(const gp_op_attrs&);
  float (*alpha)(const gp_op_attrs&);  // oneDNN's alpha and beta: the catalog attribute they stand for
  float (*beta)(const gp_op_attrs&) = zero;
};

template <algorithm A>
algorithm fixed(const gp_op_attrs&) {
  return A;
}
algorithm gelu_algo(const gp_op_attrs& a) {
  return a.gelu_approx == 1 ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf;
}

// relu is oneDNN's relu with alpha 0, leaky_relu its relu with the catalog's slope; softplus is
// soft_relu (oneDNN 2.6: log(1 + e^x), no alpha); neg is linear (alpha x + beta) with alpha -1;
// pow_scalar is pow (alpha x^beta) with alpha 1 and the catalog's exponent as beta.
constexpr EltwiseOp ops[] = {
    {"neg", fixed<algorithm::eltwise_linear>, minus_one},
    {"pow_scalar", fixed<algorithm::eltwise_pow>, one, catalog_p},
    {"hardswish", fixed<algorithm::eltwise_hardswish>, zero},
    {"exp", fixed<algorithm::eltwise_exp>, zero},
    {"log", fixed<algorithm::eltwise_log>, zero},
    {"sqrt", fixed<algorithm::eltwise_sqrt>, zero},
    {"tanh", fixed<algorithm::eltwise_tanh>, zero},
    {"sigmoid", fixed<algorithm::eltwise_logistic>, zero},
    {"elu", fixed<algorithm::eltwise_elu>, catalog_alpha},
    {"gelu", gelu_algo, zero},
    {"relu", fixed<algorithm::eltwise_relu>, zero},
    {"leaky_relu", fixed<algorithm::eltwise_relu>, catalog_alpha},
    {"square", fixed<algorithm::eltwise_square>, zero},
    {"abs", fixed<algorithm::eltwise_abs>, zero},
    {"softplus", fixed<algorithm::eltwise_soft_relu>, zero},
    {"silu", fixed<algorithm::eltwise_swish>, one},
};

const EltwiseOp* find(const char* name) {
  for (const EltwiseOp& op : ops)
    if (std::strcmp(op.name, name) == 0) return &op;
  return nullptr;
}

dnnl::memory::desc flat_desc(const gp_op_call& c) {
  int64_t n = 1;
  for (int32_t i = 0; i < c.output.rank; ++i) n *= c.output.dims[i];
  return plain_desc(dnnl::memory::dims{n}, c.dtype);
}

dnnl::eltwise_forward::primitive_desc forward_pd(const dnnl::engine& engine, const gp_op_call& c) {
  const EltwiseOp& op = *find(c.op);
  const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_training, op.algo(c.attrs), flat_desc(c),
                                      op.alpha(c.attrs), op.beta(c.attrs));
  return {d, engine};
}

dnnl::eltwise_backward::primitive_desc backward_pd(const dnnl::engine& engine, const gp_op_call& c) {
  const EltwiseOp& op = *find(c.op);
  const dnnl::memory::desc md = flat_desc(c);
  const dnnl::eltwise_backward::desc d(op.algo(c.attrs), md, md, op.alpha(c.attrs), op.beta(c.attrs));
  return {d, engine, forward_pd(engine, c)};
}

bool has(const char* name) { return find(name) != nullptr; }

std::optional<std::string> cannot_run(const dnnl::engine& engine, const gp_op_call& c) {
  return creation_failure([&] { backward_pd(engine, c); });
}

void forward(const Exec& e, void* out) {
  const auto pd = forward_pd(e.engine, e.call);
  dnnl::eltwise_forward(pd).execute(
      e.stream, {{DNNL_ARG_SRC, wrap(e, pd.src_desc(), e.inputs[0])}, {DNNL_ARG_DST, wrap(e, pd.dst_desc(), out)}});
}

void vjp(const Exec& e, const void*, const void* dout, void* const* grads) {
  const auto pd = backward_pd(e.engine, e.call);
  dnnl::eltwise_backward(pd).execute(e.stream, {{DNNL_ARG_SRC, wrap(e, pd.src_desc(), e.inputs[0])},
                                                {DNNL_ARG_DIFF_DST, wrap(e, pd.diff_dst_desc(), dout)},
                                                {DNNL_ARG_DIFF_SRC, wrap(e, pd.diff_src_desc(), grads[0])}});
}

}  // namespace
}  // namespace eltwise_impl

const Family eltwise_family{eltwise_impl::has, eltwise_impl::cannot_run, eltwise_impl::forward, eltwise_impl::vjp};

}  // namespace gp_onednn
