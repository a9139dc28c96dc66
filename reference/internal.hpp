// Internal vocabulary of the reference: per-family entry points (dispatch.cpp validates the call
// before handing it to them), small tensor helpers, the helpers that tell the error model what a
// kernel legitimately does (stored, either_form) and what a definition prescribes (staged), and
// the stable softmax row shared by logsumexp, softmax, log_softmax, cross_entropy, gumbel_softmax
// and log_matmul_exp. Not a public header.
//
// Everything is a template over the real type R, explicitly instantiated (GP_REF_INSTANTIATE) for
// long double, the oracle's MpReal and Tracked. Math calls are unqualified after `using std::exp;`
// etc., so that argument-dependent lookup finds Boost.Multiprecision's and Tracked's overloads.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/mp_real.hpp"
#include "reference/reference.hpp"
#include "reference/sum.hpp"
#include "reference/tracked.hpp"

namespace gp::ref::detail {

template <class R>
inline constexpr bool kTracked = std::is_same_v<R, Tracked>;

template <class R>
R stored(const R& y) {
  return y;
}
template <class R>
R staged(const R& v) {
  return v;
}
template <class R>
R either_form(const R& stable, const R&) {
  return stable;
}

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }
template <class R>
R mag(const R& x) {
  using std::fabs;
  return fabs(x);
}
template <class R>
R real(std::int64_t n) {
  return R(static_cast<long long>(n));
}

// Throws gp::Error("reference: <op> [<case>]: <what>").
[[noreturn]] void fail(const OpCall& call, const std::string& what);

// A tensor of `shape` with zero values.
template <class R>
BasicRefTensor<R> zeros(const Shape& shape) {
  BasicRefTensor<R> t;
  t.shape = shape;
  t.v.assign(at(shape.numel()), R(0));
  return t;
}
// A tensor of `shape` holding the results of one Sum per element (accumulated gradients).
template <class R>
BasicRefTensor<R> results(const Shape& shape, const std::vector<Sum<R>>& sums) {
  BasicRefTensor<R> t = zeros<R>(shape);
  for (std::size_t k = 0; k < sums.size(); ++k) t.v[k] = sums[k].result();
  return t;
}
// The gradient entry of an input that receives none: shape set, v empty.
template <class R>
BasicRefTensor<R> no_grad(const Shape& shape) {
  BasicRefTensor<R> t;
  t.shape = shape;
  return t;
}

// --- implementation units ----------------------------------------------------------------------
// A unit is reference/<unit>.cpp with its two entry points <unit>_forward and <unit>_vjp. An op of
// the unary, binary, reduction, layout, loss or optimizer family is served by its family's unit,
// which names the op in a switch or a formula table; reference/dispatch.cpp's table names the unit
// of each row-wise and linear-algebra op. Inputs have been checked against call.input_shapes and
// dout against call.output_shape.
#define GP_REF_FAMILY_DECL(family)                                                                          \
  template <class R>                                                                                        \
  BasicRefTensor<R> family##_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in);         \
  template <class R>                                                                                        \
  std::vector<BasicRefTensor<R>> family##_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in, \
                                              const BasicRefTensor<R>& dout);
GP_REF_FAMILY_DECL(unary)
GP_REF_FAMILY_DECL(binary)
GP_REF_FAMILY_DECL(reduction)
GP_REF_FAMILY_DECL(rowwise)
GP_REF_FAMILY_DECL(layer_norm)
GP_REF_FAMILY_DECL(linalg)
GP_REF_FAMILY_DECL(layout)
GP_REF_FAMILY_DECL(loss)
GP_REF_FAMILY_DECL(gumbel_softmax)
GP_REF_FAMILY_DECL(bspline_basis)
GP_REF_FAMILY_DECL(tt_embedding)
GP_REF_FAMILY_DECL(optimizer)
GP_REF_FAMILY_DECL(log_matmul_exp)
GP_REF_FAMILY_DECL(gru_cell)
#undef GP_REF_FAMILY_DECL

// Explicit instantiation of a family's two entry points for the three real types (in its .cpp).
#define GP_REF_INSTANTIATE_FOR(family, R)                                                                       \
  template BasicRefTensor<R> family##_forward<R>(const OpCall&, const std::vector<BasicRefTensor<R>>&);         \
  template std::vector<BasicRefTensor<R>> family##_vjp<R>(const OpCall&, const std::vector<BasicRefTensor<R>>&, \
                                                          const BasicRefTensor<R>&);
#define GP_REF_INSTANTIATE(family)            \
  GP_REF_INSTANTIATE_FOR(family, long double) \
  GP_REF_INSTANTIATE_FOR(family, MpReal)      \
  GP_REF_INSTANTIATE_FOR(family, Tracked)

// --- rows along an axis ------------------------------------------------------------------------
// Element j of row (o, i) of a tensor viewed as [outer, n, inner] sits at (o*n + j)*inner + i.
inline std::int64_t row_index(const AxisSplit& s, std::int64_t o, std::int64_t i, std::int64_t j) {
  return (o * s.n + j) * s.inner + i;
}
template <class R>
std::vector<R> gather_row(const std::vector<R>& v, const AxisSplit& s, std::int64_t o, std::int64_t i) {
  std::vector<R> row(at(s.n));
  for (std::int64_t j = 0; j < s.n; ++j) row[at(j)] = v[at(row_index(s, o, i, j))];
  return row;
}

// --- two-pass variance -------------------------------------------------------------------------
// d_j = x_j - mean and sum d_j^2 (variance, layer_norm). The mean's error e shifts every d_j by
// -e, but the sum of squares moves only by -2 e sum(d) + n e^2: sum(d) is zero to the
// reference's precision, so to first order the mean's error cancels. Propagating e through each
// square separately would charge 2 sum|d_j| e, which at rows like 1000 + N(0, 1e-2) in f32 exceeds
// the variance itself; the Tracked form charges the first-order term with the computed sum(d)
// and the second-order n e^2 (e at its worst case) instead. The d_j keep e: a gradient that
// uses d_j one at a time sees it to first order.
template <class R>
struct CenteredSquares {
  std::vector<R> d;
  R sum;
};
// The sum of squares over x(j), j < n, read one element at a time (a line too long to copy:
// reference/reduction.cpp); `d`, when given, receives the d_j.
template <class R, class X>
R centered_square_sum(std::int64_t n, const X& x, const R& mean, std::vector<R>* d = nullptr) {
  Sum<R> squares, deviations;
  for (std::int64_t j = 0; j < n; ++j) {
    const R& xi = x(j);  // a reader that computes its element returns a temporary, kept for the iteration
    const R dj = xi - mean;
    if (d) d->push_back(dj);
    if constexpr (kTracked<R>) {
      const R dd = xi - detached(mean);
      squares.add_product(dd, dd);
      deviations.add(detached(dd));
    } else {
      squares.add_product(dj, dj);
    }
  }
  R sum = squares.result();
  if constexpr (kTracked<R>) {
    propagate(sum.e, mean.e, 2 * deviations.result().v);
    const long double e = mean.e.det + mean.e.acc;
    sum.e.det += static_cast<long double>(n) * e * e;
  }
  return sum;
}
template <class R>
CenteredSquares<R> centered_squares(const std::vector<R>& x, const R& mean) {
  CenteredSquares<R> c;
  c.d.reserve(x.size());
  c.sum = centered_square_sum(
      static_cast<std::int64_t>(x.size()), [&](std::int64_t j) -> const R& { return x[at(j)]; }, mean, &c.d);
  return c;
}

// --- the stable softmax of one row --------------------------------------------------------------
// m = max_k x_k, e_k = exp(x_k - m) (e = 1 at the argmax), S = sum_k e_k, p_j = e_j / S, and
// log S = log1p(rest) with rest the sum over every k but the argmax: a row dominated by its
// maximum keeps the digits of its log-sum-exp (log_softmax at the maximum, cross_entropy of a
// confident row).
template <class R>
struct SoftmaxRow {
  R max = 0;      // m
  R log_sum = 0;  // log S; logsumexp = m + log S
  R sum = 0;      // S
  R rest = 0;     // S - 1: the sum without the argmax's term (1 - p_argmax = rest / S)
  std::vector<R> p;
  std::size_t argmax = 0;
};
// staged_exp: the definition rounds each e_k to the storage type before dividing by S
// (OpAttrs::staged of softmax); S stays the sum of the unrounded e_k.
template <class R>
SoftmaxRow<R> softmax_row(const std::vector<R>& x, bool staged_exp = false);

// VJP of softmax for one row: g_j = p_j (dy_j - <dy, p>), with p read back from storage (a
// backward receives the forward output).
template <class R>
std::vector<R> softmax_row_vjp(const SoftmaxRow<R>& row, const std::vector<R>& dy);

}  // namespace gp::ref::detail
