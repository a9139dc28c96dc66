// Reductions over one axis: sum, mean, max, logsumexp, variance. The input is viewed as
// [outer, n, inner] (core split_at_axis); output element (o, i) sits at o * inner + i whether or
// not keepdim is set.
//   sum        Sum of the row                   gradient: dy copied
//   mean       sum / n                          gradient: dy / n
//   max        selection                        gradient: to the first maximum
//   logsumexp  m + log1p(rest) (SoftmaxRow)     gradient dy p_j, or dy exp(x_j - y) from the stored y
//   variance   two-pass: sum (x - mean)^2 / (n - c) (centered_squares)
//              gradient 2 dy (x_j - mean) / (n - c)
#include <algorithm>
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

AxisSplit checked_split(const OpCall& call) {
  AxisSplit s = split_at_axis(call.input_shapes[0], call.attrs.axis);
  if (s.outer * s.inner != call.output_shape.numel()) fail(call, "reduced size disagrees with the output shape");
  return s;
}

template <class R>
R row_sum(const std::vector<R>& row) {
  Sum<R> s;
  for (const R& x : row) s.add(x);
  return s.result();
}

template <class R>
R divisor(const OpCall& call, std::int64_t n) {
  std::int64_t d = n - call.attrs.correction;
  if (d <= 0)
    fail(call, "variance over " + std::to_string(n) + " elements with correction " +
                   std::to_string(call.attrs.correction) + " divides by " + std::to_string(d));
  return real<R>(d);
}

}  // namespace

template <class R>
BasicRefTensor<R> reduction_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  AxisSplit s = checked_split(call);
  BasicRefTensor<R> y = zeros<R>(call.output_shape);
  const R n = real<R>(s.n);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      std::vector<R> row = gather_row(in[0].v, s, o, i);
      R& value = y.v[at(o * s.inner + i)];
      switch (call.kind) {
        case OpKind::sum:
          value = row_sum(row);
          break;
        case OpKind::mean:
          value = row_sum(row) / n;
          break;
        case OpKind::max:
          value = *std::max_element(row.begin(), row.end());
          break;
        case OpKind::logsumexp: {
          SoftmaxRow<R> r = softmax_row(row);
          value = r.max + r.log_sum;
          break;
        }
        case OpKind::variance:
          value = centered_squares(row, row_sum(row) / n).sum / divisor<R>(call, s.n);
          break;
        default:
          fail(call, "is not a reduction");
      }
    }
  }
  return y;
}

template <class R>
std::vector<BasicRefTensor<R>> reduction_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                             const BasicRefTensor<R>& dout) {
  using std::exp;
  AxisSplit s = checked_split(call);
  BasicRefTensor<R> g = zeros<R>(in[0].shape);
  const R n = real<R>(s.n);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      std::vector<R> row = gather_row(in[0].v, s, o, i);
      const R dy = dout.v[at(o * s.inner + i)];
      auto put = [&](std::int64_t j, R value) { g.v[at(row_index(s, o, i, j))] = value; };
      switch (call.kind) {
        case OpKind::sum:
          for (std::int64_t j = 0; j < s.n; ++j) put(j, dy);
          break;
        case OpKind::mean:
          for (std::int64_t j = 0; j < s.n; ++j) put(j, dy / n);
          break;
        case OpKind::max: {
          // Unique maximum by the domain; on a tie the first one receives the gradient.
          auto arg = std::max_element(row.begin(), row.end()) - row.begin();
          for (std::int64_t j = 0; j < s.n; ++j) put(j, j == arg ? dy : R(0));
          break;
        }
        case OpKind::logsumexp: {
          SoftmaxRow<R> r = softmax_row(row);
          for (std::int64_t j = 0; j < s.n; ++j) {
            R p = r.p[at(j)];
            if constexpr (kTracked<R>)
              if (backward_reads_output()) p = either_form(p, exp(row[at(j)] - stored(r.max + r.log_sum)));
            put(j, dy * p);
          }
          break;
        }
        case OpKind::variance: {
          const R mean = row_sum(row) / n, div = divisor<R>(call, s.n);
          const std::vector<R> d = centered_squares(row, mean).d;
          for (std::int64_t j = 0; j < s.n; ++j) put(j, 2 * dy * d[at(j)] / div);
          break;
        }
        default:
          fail(call, "is not a reduction");
      }
    }
  }
  return {std::move(g)};
}

GP_REF_INSTANTIATE(reduction)
}  // namespace gp::ref::detail
