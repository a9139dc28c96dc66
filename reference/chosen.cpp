// Ops whose gradient is declared rather than derived.
//   ste_round          forward: round half to even (exact, scale |y|); VJP: identity surrogate
//   ste_hardtanh_gate  forward: x > 0 ? 1 : 0 (exact); VJP: dy [|x| < 1], the hardtanh derivative
//   gumbel_softmax     y = softmax((l + noise) / tau) over the last axis; exact VJP for l, none for
//                      the noise. z = (l + noise) / tau costs two roundings, so z_k carries an
//                      absolute error scale 2|z_k| that SoftmaxRow propagates; the VJP for l is the
//                      softmax VJP divided by tau: scale g_scale / tau + |g|.
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

Real round_half_even(Real x) {
  Real r = std::floor(x), frac = x - r;
  if (frac > Real(0.5)) return r + 1;
  if (frac < Real(0.5)) return r;
  return std::fmod(r, Real(2)) == 0 ? r : r + 1;
}

Real tau_of(const OpCall& call) {
  if (!(call.attrs.tau > 0)) fail(call, "tau must be positive, got " + std::to_string(call.attrs.tau));
  return call.attrs.tau;
}

// Runs fn(row_offset, n, SoftmaxRow) over the rows of the last axis of gumbel_softmax's inputs.
template <typename Fn>
void gumbel_rows(const OpCall& call, const std::vector<RefTensor>& in, Fn fn) {
  const Real tau = tau_of(call);
  AxisSplit s = split_at_axis(call.input_shapes[0], -1);  // inner == 1
  for (std::int64_t o = 0; o < s.outer; ++o) {
    std::vector<Real> z(at(s.n)), z_scale(at(s.n));
    for (std::int64_t j = 0; j < s.n; ++j) {
      std::size_t k = at(o * s.n + j);
      z[at(j)] = (in[0].v[k] + in[1].v[k]) / tau;
      z_scale[at(j)] = 2 * mag(z[at(j)]);
    }
    fn(o * s.n, s.n, softmax_row(z, &z_scale));
  }
}

}  // namespace

RefTensor chosen_forward(const OpCall& call, const std::vector<RefTensor>& in) {
  RefTensor y = zeros(call.output_shape);
  const auto& x = in[0].v;
  switch (call.kind) {
    case OpKind::ste_round:
      for (std::size_t i = 0; i < x.size(); ++i) y.v[i] = round_half_even(x[i]);
      break;
    case OpKind::ste_hardtanh_gate:
      for (std::size_t i = 0; i < x.size(); ++i) y.v[i] = x[i] > 0 ? 1 : 0;
      break;
    case OpKind::gumbel_softmax:
      gumbel_rows(call, in, [&](std::int64_t offset, std::int64_t n, const SoftmaxRow& r) {
        for (std::int64_t j = 0; j < n; ++j) {
          y.v[at(offset + j)] = r.p[at(j)];
          y.scale[at(offset + j)] = r.p[at(j)] * r.rel[at(j)];
        }
      });
      return y;
    default:
      fail(call, "is not an op with a chosen gradient");
  }
  set_exact_scale(y);
  return y;
}

std::vector<RefTensor> chosen_vjp(const OpCall& call, const std::vector<RefTensor>& in, const RefTensor& dout) {
  RefTensor g = zeros(in[0].shape);
  const auto& x = in[0].v;
  switch (call.kind) {
    case OpKind::ste_round:
      g.v = dout.v;
      break;
    case OpKind::ste_hardtanh_gate:
      for (std::size_t i = 0; i < x.size(); ++i) g.v[i] = std::fabs(x[i]) < 1 ? dout.v[i] : 0;
      break;
    case OpKind::gumbel_softmax: {
      const Real tau = tau_of(call);
      gumbel_rows(call, in, [&](std::int64_t offset, std::int64_t n, const SoftmaxRow& r) {
        std::vector<Real> dy(dout.v.begin() + offset, dout.v.begin() + offset + n), gv, gs;
        softmax_row_vjp(r, dy, gv, gs);
        for (std::int64_t j = 0; j < n; ++j) {
          g.v[at(offset + j)] = gv[at(j)] / tau;
          g.scale[at(offset + j)] = gs[at(j)] / tau + mag(gv[at(j)] / tau);
        }
      });
      return {std::move(g), no_grad(in[1].shape)};
    }
    default:
      fail(call, "is not an op with a chosen gradient");
  }
  set_exact_scale(g);
  return {std::move(g)};
}

}  // namespace gp::ref::detail
