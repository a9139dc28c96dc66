// Ops whose gradient is declared rather than derived.
//   ste_round          forward: round half to even (exact); VJP: identity surrogate
//   ste_hardtanh_gate  forward: x > 0 ? 1 : 0 (exact); VJP: dy [|x| < 1], the hardtanh derivative
//   gumbel_softmax     y = softmax((l + noise) / tau) over the last axis; exact VJP for l (the
//                      softmax VJP divided by tau), none for the noise.
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

using std::floor;
using std::fmod;

template <class R>
R round_half_even(const R& x) {
  R r = floor(x), frac = x - r;
  if (frac > R(0.5)) return r + 1;
  if (frac < R(0.5)) return r;
  return fmod(r, R(2)) == 0 ? r : R(r + 1);
}

double tau_of(const OpCall& call) {
  if (!(call.attrs.tau > 0)) fail(call, "tau must be positive, got " + std::to_string(call.attrs.tau));
  return call.attrs.tau;
}

// Runs fn(row_offset, n, SoftmaxRow<R>) over the rows of the last axis of gumbel_softmax's inputs.
template <class R, typename Fn>
void gumbel_rows(const OpCall& call, const std::vector<BasicRefTensor<R>>& in, Fn fn) {
  const R tau(tau_of(call));
  AxisSplit s = split_at_axis(call.input_shapes[0], -1);  // inner == 1
  for (std::int64_t o = 0; o < s.outer; ++o) {
    std::vector<R> z(at(s.n));
    for (std::int64_t j = 0; j < s.n; ++j) {
      std::size_t k = at(o * s.n + j);
      z[at(j)] = (in[0].v[k] + in[1].v[k]) / tau;
    }
    fn(o * s.n, s.n, softmax_row(z));
  }
}

}  // namespace

template <class R>
BasicRefTensor<R> chosen_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  BasicRefTensor<R> y = zeros<R>(call.output_shape);
  const auto& x = in[0].v;
  switch (call.kind) {
    case OpKind::ste_round:
      for (std::size_t i = 0; i < x.size(); ++i) y.v[i] = round_half_even(x[i]);
      break;
    case OpKind::ste_hardtanh_gate:
      for (std::size_t i = 0; i < x.size(); ++i) y.v[i] = R(x[i] > 0 ? 1 : 0);
      break;
    case OpKind::gumbel_softmax:
      gumbel_rows(call, in, [&](std::int64_t offset, std::int64_t n, const SoftmaxRow<R>& r) {
        for (std::int64_t j = 0; j < n; ++j) y.v[at(offset + j)] = r.p[at(j)];
      });
      return y;
    default:
      fail(call, "is not an op with a chosen gradient");
  }
  return y;
}

template <class R>
std::vector<BasicRefTensor<R>> chosen_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                          const BasicRefTensor<R>& dout) {
  BasicRefTensor<R> g = zeros<R>(in[0].shape);
  const auto& x = in[0].v;
  switch (call.kind) {
    case OpKind::ste_round:
      g.v = dout.v;
      break;
    case OpKind::ste_hardtanh_gate:
      for (std::size_t i = 0; i < x.size(); ++i) g.v[i] = mag(x[i]) < 1 ? dout.v[i] : R(0);
      break;
    case OpKind::gumbel_softmax: {
      const R tau(tau_of(call));
      gumbel_rows(call, in, [&](std::int64_t offset, std::int64_t n, const SoftmaxRow<R>& r) {
        std::vector<R> dy(dout.v.begin() + offset, dout.v.begin() + offset + n);
        std::vector<R> gv = softmax_row_vjp(r, dy);
        for (std::int64_t j = 0; j < n; ++j) g.v[at(offset + j)] = gv[at(j)] / tau;
      });
      return {std::move(g), no_grad<R>(in[1].shape)};
    }
    default:
      fail(call, "is not an op with a chosen gradient");
  }
  return {std::move(g)};
}

GP_REF_INSTANTIATE(chosen)
}  // namespace gp::ref::detail
