// softmax and log_softmax along one axis (stable: the row maximum is subtracted, log S taken as
// log1p of the sum without the maximum's term); layer_norm, gumbel_softmax and bspline_basis (a
// value in, a row out) have files of their own.
//   softmax       y_j = p_j                  gradient p_j (dy_j - <dy, p>)
//   log_softmax   y_j = (x_j - m) - log S    gradient dy_j - p_j sum(dy), where a kernel may take
//                                            p_j as exp(y_j) of its stored output (either_form)
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

// Calls fn(o, i, row, sink) for every row; sink(j, value) writes element j of that row.
template <class R, typename Fn>
BasicRefTensor<R> for_each_row(const Shape& shape, int axis, const std::vector<R>& v, Fn fn) {
  AxisSplit s = split_at_axis(shape, axis);
  BasicRefTensor<R> out = zeros<R>(shape);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      auto sink = [&](std::int64_t j, const R& value) { out.v[at(row_index(s, o, i, j))] = value; };
      fn(s, o, i, gather_row(v, s, o, i), sink);
    }
  }
  return out;
}

// staged (log_softmax, staged=storage): the definition rounds the shift x_j - m to the storage
// type before subtracting log S, which comes from the unrounded shifts (oneDNN's). The shift's
// absolute error, at most u_s |x_j - m|, passes into y_j with derivative 1. A backward that takes
// p_j as exp(y_j) of its stored output sees it as a relative error of p_j: p_j u_s |x_j - m|
// |sum(dy)| more in g_j = dy_j - p_j sum(dy) (either_form); one that takes p_j from x does not.
template <class R>
R log_softmax_value(const SoftmaxRow<R>& r, const std::vector<R>& x, std::size_t j, bool staged_shift) {
  if (staged_shift) return staged(x[j] - r.max) - r.log_sum;
  return (x[j] - r.max) - r.log_sum;
}

bool is_staged(const OpCall& call) { return call.attrs.staged == Staged::storage; }

// The softmax unit serves softmax and log_softmax (reference/dispatch.cpp routes them here).
bool is_log(const OpCall& call) { return call.kind == OpKind::log_softmax; }

}  // namespace

template <class R>
BasicRefTensor<R> rowwise_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const bool log = is_log(call);
  return for_each_row(in[0].shape, call.attrs.axis, in[0].v,
                      [&](const AxisSplit& s, auto, auto, const auto& x, auto sink) {
                        SoftmaxRow<R> r = softmax_row(x, !log && is_staged(call));
                        for (std::int64_t j = 0; j < s.n; ++j)
                          sink(j, log ? log_softmax_value(r, x, at(j), is_staged(call)) : r.p[at(j)]);
                      });
}

template <class R>
std::vector<BasicRefTensor<R>> rowwise_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                           const BasicRefTensor<R>& dout) {
  using std::exp;
  const bool log = is_log(call);
  BasicRefTensor<R> g = for_each_row(
      in[0].shape, call.attrs.axis, in[0].v, [&](const AxisSplit& s, auto o, auto i, const auto& x, auto sink) {
        SoftmaxRow<R> r = softmax_row(x, !log && is_staged(call));
        std::vector<R> dy = gather_row(dout.v, s, o, i);
        if (!log) {
          std::vector<R> gv = softmax_row_vjp(r, dy);
          for (std::int64_t j = 0; j < s.n; ++j) sink(j, gv[at(j)]);
          return;
        }
        Sum<R> sum;
        for (const R& d : dy) sum.add(d);
        const R total = sum.result();
        for (std::int64_t j = 0; j < s.n; ++j) {
          const std::size_t k = at(j);
          R p = r.p[k];
          if constexpr (kTracked<R>)
            if (backward_reads_output()) p = either_form(p, exp(stored(log_softmax_value(r, x, k, is_staged(call)))));
          sink(j, dy[k] - p * total);
        }
      });
  return {std::move(g)};
}

GP_REF_INSTANTIATE(rowwise)
}  // namespace gp::ref::detail
