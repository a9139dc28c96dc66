// Reductions over one axis: sum, mean, max, logsumexp, variance. The input is viewed as
// [outer, n, inner] (core split_at_axis); output element (o, i) sits at o * inner + i whether or
// not keepdim is set. Scales (reference/README.md explains each):
//   sum        n * sum|x|                       gradient: dy copied, |g|
//   mean       sum|x|  (n * sum|x| / n)         gradient: dy / n, |g|
//   max        |y| (a selection is exact)       gradient: to the first maximum, |g|
//   logsumexp  SoftmaxRow<R>::lse_scale            gradient dy p_j: |g|(1 + rel_j + lse_scale + |x_j - y|)
//   variance   ((n + 2) sum d^2 + u32 n (sum|x|)^2) / (n - c), d = x - mean
//              gradient 2 dy d_j / (n - c): 2|dy| (|d_j| + sum|x|) / (n - c) + 3|g|
#include <algorithm>
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

// Second-order guard of the variance scale: a kernel's mean is off by e <= u * sum|x|, which adds
// n e^2 / (n - c) to the variance. Kernels compute in f32 or f64, so u <= 2^-24 here.
constexpr long double kU32 = 1.0L / (1 << 24);

AxisSplit checked_split(const OpCall& call) {
  AxisSplit s = split_at_axis(call.input_shapes[0], call.attrs.axis);
  if (s.outer * s.inner != call.output_shape.numel()) fail(call, "reduced size disagrees with the output shape");
  return s;
}

template <class R>
struct RowStats {
  R sum = 0, abs_sum = 0;
};
template <class R>
RowStats<R> stats(const std::vector<R>& row) {
  RowStats<R> s;
  for (const R& x : row) {
    s.sum += x;
    s.abs_sum += mag(x);
  }
  return s;
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
      RowStats<R> st = stats(row);
      R& value = y.v[at(o * s.inner + i)];
      R& scale = y.scale[at(o * s.inner + i)];
      switch (call.kind) {
        case OpKind::sum:
          value = st.sum, scale = n * st.abs_sum;
          break;
        case OpKind::mean:
          value = st.sum / n, scale = st.abs_sum;
          break;
        case OpKind::max:
          value = *std::max_element(row.begin(), row.end()), scale = mag(value);
          break;
        case OpKind::logsumexp: {
          SoftmaxRow<R> r = softmax_row(row);
          value = r.max + r.log_sum, scale = r.lse_scale;
          break;
        }
        case OpKind::variance: {
          R mean = st.sum / n, squares = 0;
          for (R x : row) squares += (x - mean) * (x - mean);
          R div = divisor<R>(call, s.n);
          value = squares / div;
          scale = ((n + 2) * squares + R(kU32) * n * st.abs_sum * st.abs_sum) / div;
          break;
        }
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
  AxisSplit s = checked_split(call);
  BasicRefTensor<R> g = zeros<R>(in[0].shape);
  const R n = real<R>(s.n);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      std::vector<R> row = gather_row(in[0].v, s, o, i);
      RowStats<R> st = stats(row);
      const R dy = dout.v[at(o * s.inner + i)];
      auto put = [&](std::int64_t j, R value, R scale) {
        g.v[at(row_index(s, o, i, j))] = value;
        g.scale[at(row_index(s, o, i, j))] = scale;
      };
      switch (call.kind) {
        case OpKind::sum:
          for (std::int64_t j = 0; j < s.n; ++j) put(j, dy, mag(dy));
          break;
        case OpKind::mean:
          for (std::int64_t j = 0; j < s.n; ++j) put(j, dy / n, mag(dy / n));
          break;
        case OpKind::max: {
          // Unique maximum by the domain; on a tie the first one receives the gradient.
          auto arg = std::max_element(row.begin(), row.end()) - row.begin();
          for (std::int64_t j = 0; j < s.n; ++j) put(j, j == arg ? dy : 0, j == arg ? mag(dy) : 0);
          break;
        }
        case OpKind::logsumexp: {
          SoftmaxRow<R> r = softmax_row(row);
          R y = r.max + r.log_sum;
          for (std::int64_t j = 0; j < s.n; ++j) {
            R gj = dy * r.p[at(j)];
            put(j, gj, mag(gj) * (1 + r.rel[at(j)] + r.lse_scale + mag(row[at(j)] - y)));
          }
          break;
        }
        case OpKind::variance: {
          R mean = st.sum / n, div = divisor<R>(call, s.n);
          for (std::int64_t j = 0; j < s.n; ++j) {
            R d = row[at(j)] - mean, gj = 2 * dy * d / div;
            put(j, gj, 2 * mag(dy) * (mag(d) + st.abs_sum) / div + 3 * mag(gj));
          }
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
