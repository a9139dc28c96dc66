// gumbel_softmax: y = softmax((l + noise) / tau) over the last axis, the noise given as an
// input; the exact VJP for the logits (the softmax VJP divided by tau), none for the noise.
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

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
BasicRefTensor<R> gumbel_softmax_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  BasicRefTensor<R> y = zeros<R>(call.output_shape);
  gumbel_rows(call, in, [&](std::int64_t offset, std::int64_t n, const SoftmaxRow<R>& r) {
    for (std::int64_t j = 0; j < n; ++j) y.v[at(offset + j)] = r.p[at(j)];
  });
  return y;
}

template <class R>
std::vector<BasicRefTensor<R>> gumbel_softmax_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                                  const BasicRefTensor<R>& dout) {
  BasicRefTensor<R> g = zeros<R>(in[0].shape);
  const R tau(tau_of(call));
  gumbel_rows(call, in, [&](std::int64_t offset, std::int64_t n, const SoftmaxRow<R>& r) {
    std::vector<R> dy(dout.v.begin() + offset, dout.v.begin() + offset + n);
    std::vector<R> gv = softmax_row_vjp(r, dy);
    for (std::int64_t j = 0; j < n; ++j) g.v[at(offset + j)] = gv[at(j)] / tau;
  });
  return {std::move(g), no_grad<R>(in[1].shape)};
}

GP_REF_INSTANTIATE(gumbel_softmax)
}  // namespace gp::ref::detail
