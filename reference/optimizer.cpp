// The optimizer steps, one element of the flattened parameter at a time (PyTorch's SGD and
// AdamW, non-foreach, maximize=False; core/README.md). Each formula is written once over the
// real type: in Tracked arithmetic it bounds a kernel that evaluates it in the same order from
// the same constants (core's optimizer_scalars, rounded to the compute type like any constant).
//   sgd_step     g = grad + wd p;  buf' = g (first) or momentum buf + (1 - dampening) g;
//                g' = g + momentum buf' (Nesterov) or buf';  p' = p - lr g'
//   adamw_step   m' = b1 m + (1 - b1) g;  v' = b2 v + (1 - b2) g^2;  c = 1 - b^t;
//                p' = (1 - lr wd) p - lr (m' / c1) / (sqrt(v' / c2) + eps)
// 1 - b^t is -expm1(t log1p(-(1 - b))): b^t itself would lose all of 1 - b^t's digits at t = 1
// and b2 = 0.999 (a cancellation of 1000 ulp); 1 - b is exact in double. v' >= 0 for v >= 0.
// Nothing is differentiated: the grad mask is 0, the report says "forward only".
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

// The state written when momentum is 0 (PyTorch keeps no buffer): the input buffer, unchanged.
template <class R>
void sgd_element(const OptimizerScalars& s, const R& p, const R& grad, const R& buf, R& p_out, R& buf_out) {
  R g = s.weight_decay != 0 ? grad + R(s.weight_decay) * p : grad;
  buf_out = buf;
  if (s.momentum != 0) {
    buf_out = s.first ? g : R(s.momentum) * buf + R(s.one_minus_dampening) * g;
    g = s.nesterov ? g + R(s.momentum) * buf_out : buf_out;
  }
  p_out = p - R(s.lr) * g;
}

// 1 - beta^t from 1 - beta.
template <class R>
R bias_correction(double one_minus_beta, double t) {
  using std::expm1;
  using std::log1p;
  return -expm1(R(t) * log1p(-R(one_minus_beta)));
}

// A parameter element with its two moments.
template <class R>
struct AdamwElement {
  R p, m, v;
};

template <class R>
AdamwElement<R> adamw_element(const OptimizerScalars& s, const R& c1, const R& c2, const R& g,
                              const AdamwElement<R>& in) {
  using std::sqrt;
  AdamwElement<R> out;
  R& m_out = out.m;
  R& v_out = out.v;
  m_out = R(s.beta1) * in.m + R(s.one_minus_beta1) * g;
  v_out = R(s.beta2) * in.v + R(s.one_minus_beta2) * (g * g);
  // v' is a sum of non-negative terms on any device, never below 0. The bound's probes of a
  // training run (harness/training/training_checks.cpp) move it by its own error, which near 0 could take
  // it below: read as 0 there, as the device's would be.
  const R second = v_out < R(0) ? R(0) : v_out;
  const R denom = sqrt(second / c2) + R(s.eps);
  out.p = R(s.decay) * in.p - R(s.lr) * (m_out / c1) / denom;
  return out;
}

}  // namespace

template <class R>
BasicRefTensor<R> optimizer_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const OptimizerScalars s = optimizer_scalars(call);
  const std::int64_t n = in[0].numel();
  BasicRefTensor<R> out = zeros<R>(call.output_shape);
  auto row = [&](int r, std::int64_t i) -> R& { return out.v[at(r * n + i)]; };
  switch (call.kind) {
    case OpKind::sgd_step:
      for (std::int64_t i = 0; i < n; ++i)
        sgd_element(s, in[0].v[at(i)], in[1].v[at(i)], in[2].v[at(i)], row(0, i), row(1, i));
      return out;
    case OpKind::adamw_step:
      break;
    default:
      fail(call, "is not an optimizer step");
  }
  // adamw_step: the corrections once per call (the same value and, in Tracked arithmetic, the same
  // bound as a kernel that computes them per element), carried into every element's bound. Per
  // element they took a third of a training run's long-double evaluations (expm1 and log1p).
  const R c1 = bias_correction<R>(s.one_minus_beta1, s.t), c2 = bias_correction<R>(s.one_minus_beta2, s.t);
  for (std::int64_t i = 0; i < n; ++i) {
    const AdamwElement<R> e =
        adamw_element(s, c1, c2, in[1].v[at(i)], {in[0].v[at(i)], in[2].v[at(i)], in[3].v[at(i)]});
    row(0, i) = e.p;
    row(1, i) = e.m;
    row(2, i) = e.v;
  }
  return out;
}

template <class R>
std::vector<BasicRefTensor<R>> optimizer_vjp(const OpCall&, const std::vector<BasicRefTensor<R>>& in,
                                             const BasicRefTensor<R>&) {
  std::vector<BasicRefTensor<R>> none;
  for (const auto& t : in) none.push_back(no_grad<R>(t.shape));
  return none;
}

GP_REF_INSTANTIATE(optimizer)
}  // namespace gp::ref::detail
