// softmax and log_softmax along one axis (stable: the row maximum is subtracted); layer_norm
// lives in layer_norm.cpp. Scales, with rel_j, spread and lse_scale from SoftmaxRow<R>:
//   softmax       y_j = p_j:            p_j rel_j
//                 gradient:             softmax_row_vjp (see internal.hpp)
//   log_softmax   y_j = x_j - m - L:    |y_j| + |x_j - m| + lse_scale
//                 g_j = dy_j - p_j sum(dy):
//                   |g_j| + |dy_j| + p_j |sum dy| (2 + rel_j + scale(y_j)) + p_j n sum|dy|
//                 (p_j may be computed as exp(y_j), hence the scale of y_j in its relative error).
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

// Calls fn(o, i, row, sink) for every row; sink(j, value, scale) writes element j of that row.
template <class R, typename Fn>
BasicRefTensor<R> for_each_row(const Shape& shape, int axis, const std::vector<R>& v, Fn fn) {
  AxisSplit s = split_at_axis(shape, axis);
  BasicRefTensor<R> out = zeros<R>(shape);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      auto sink = [&](std::int64_t j, const R& value, const R& scale) {
        out.v[at(row_index(s, o, i, j))] = value;
        out.scale[at(row_index(s, o, i, j))] = scale;
      };
      fn(s, o, i, gather_row(v, s, o, i), sink);
    }
  }
  return out;
}

template <class R>
R log_softmax_scale(const SoftmaxRow<R>& r, const std::vector<R>& x, std::size_t j) {
  R y = x[j] - r.max - r.log_sum;
  return mag(y) + mag(x[j] - r.max) + r.lse_scale;
}

}  // namespace

template <class R>
BasicRefTensor<R> rowwise_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  if (call.kind == OpKind::layer_norm) return layer_norm_forward(call, in);
  const bool log = call.kind == OpKind::log_softmax;
  if (!log && call.kind != OpKind::softmax) fail(call, "is not a row-wise op");
  return for_each_row(in[0].shape, call.attrs.axis, in[0].v,
                      [&](const AxisSplit& s, auto, auto, const auto& x, auto sink) {
                        SoftmaxRow<R> r = softmax_row(x);
                        for (std::int64_t j = 0; j < s.n; ++j) {
                          std::size_t k = at(j);
                          if (log)
                            sink(j, x[k] - r.max - r.log_sum, log_softmax_scale(r, x, k));
                          else
                            sink(j, r.p[k], r.p[k] * r.rel[k]);
                        }
                      });
}

template <class R>
std::vector<BasicRefTensor<R>> rowwise_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                           const BasicRefTensor<R>& dout) {
  if (call.kind == OpKind::layer_norm) return layer_norm_vjp(call, in, dout);
  const bool log = call.kind == OpKind::log_softmax;
  if (!log && call.kind != OpKind::softmax) fail(call, "is not a row-wise op");
  BasicRefTensor<R> g = for_each_row(
      in[0].shape, call.attrs.axis, in[0].v, [&](const AxisSplit& s, auto o, auto i, const auto& x, auto sink) {
        SoftmaxRow<R> r = softmax_row(x);
        std::vector<R> dy = gather_row(dout.v, s, o, i);
        if (!log) {
          std::vector<R> gv, gs;
          softmax_row_vjp(r, dy, gv, gs);
          for (std::int64_t j = 0; j < s.n; ++j) sink(j, gv[at(j)], gs[at(j)]);
          return;
        }
        R total(0), abs_total(0);
        for (const R& d : dy) total += d, abs_total += mag(d);
        for (std::int64_t j = 0; j < s.n; ++j) {
          std::size_t k = at(j);
          R gj = dy[k] - r.p[k] * total;
          R p_rel = 2 + r.rel[k] + log_softmax_scale(r, x, k);
          sink(j, gj, mag(gj) + mag(dy[k]) + r.p[k] * mag(total) * p_rel + r.p[k] * real<R>(s.n) * abs_total);
        }
      });
  return {std::move(g)};
}

GP_REF_INSTANTIATE(rowwise)
}  // namespace gp::ref::detail
