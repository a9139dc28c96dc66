// Internal vocabulary of the reference: per-family entry points (dispatch.cpp validates the call
// before handing it to them), small tensor helpers, and the stable softmax row shared by
// logsumexp, softmax, log_softmax, cross_entropy and gumbel_softmax. Not a public header.
//
// Everything is a template over the real type R, explicitly instantiated (GP_REF_INSTANTIATE) for
// long double and for the oracle's MpReal. Math calls are unqualified after `using std::exp;`
// etc., so that argument-dependent lookup finds Boost.Multiprecision's overloads for MpReal.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reference/mp_real.hpp"
#include "reference/reference.hpp"

namespace gp::ref::detail {

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

// A tensor of `shape` with value and scale zero-filled.
template <class R>
BasicRefTensor<R> zeros(const Shape& shape) {
  BasicRefTensor<R> t;
  t.shape = shape;
  t.v.assign(at(shape.numel()), R(0));
  t.scale.assign(at(shape.numel()), R(0));
  return t;
}
// The gradient entry of an input that receives none: shape set, v and scale empty.
template <class R>
BasicRefTensor<R> no_grad(const Shape& shape) {
  BasicRefTensor<R> t;
  t.shape = shape;
  return t;
}
// Layout results are exact: scale = |value|.
template <class R>
void set_exact_scale(BasicRefTensor<R>& t) {
  t.scale.resize(t.v.size());
  for (std::size_t i = 0; i < t.v.size(); ++i) t.scale[i] = mag(t.v[i]);
}

// --- per-family entry points -------------------------------------------------------------------
// Inputs have been checked against call.input_shapes and dout against call.output_shape.
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
GP_REF_FAMILY_DECL(chosen)
#undef GP_REF_FAMILY_DECL

// Explicit instantiation of a family's two entry points for both real types (in its .cpp file).
#define GP_REF_INSTANTIATE_FOR(family, R)                                                                       \
  template BasicRefTensor<R> family##_forward<R>(const OpCall&, const std::vector<BasicRefTensor<R>>&);         \
  template std::vector<BasicRefTensor<R>> family##_vjp<R>(const OpCall&, const std::vector<BasicRefTensor<R>>&, \
                                                          const BasicRefTensor<R>&);
#define GP_REF_INSTANTIATE(family)            \
  GP_REF_INSTANTIATE_FOR(family, long double) \
  GP_REF_INSTANTIATE_FOR(family, MpReal)

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

// --- stable softmax of one row, with its error model --------------------------------------------
// p_j = exp(x_j - m) / S, S = sum_k exp(x_k - m), m = max_k x_k. A correct float kernel computes
// p_j with relative error <= K * u * rel[j]:
//   rel_j = n (accumulating S, positive terms) + 2 (exp and the division) + |x_j - m| (rounding of
//           the exp argument) + spread,  spread = sum_k p_k (1 + |x_k - m|) (errors of S's terms)
//           + xs_j + sum_k p_k xs_k when the inputs themselves carry absolute error scales xs
//           (gumbel_softmax: x = (l + noise) / tau is computed by the kernel).
template <class R>
struct SoftmaxRow {
  R max = 0;      // m
  R log_sum = 0;  // L = log S; logsumexp = m + L
  std::vector<R> p;
  std::vector<R> rel;
  R spread = 0;
  // Error scale of logsumexp = m + L: |m| + |L| + |m + L| + n + spread (see README).
  R lse_scale = 0;
};
template <class R>
SoftmaxRow<R> softmax_row(const std::vector<R>& x, const std::vector<R>* input_scale = nullptr);

// VJP of softmax for one row: g_j = p_j (dy_j - <dy, p>), with its error scale
//   |g_j| (rel_j + 1) + p_j (|dy_j| + |<dy,p>| + sum_k |dy_k| p_k (n + rel_k)).
template <class R>
void softmax_row_vjp(const SoftmaxRow<R>& row, const std::vector<R>& dy, std::vector<R>& g, std::vector<R>& g_scale);

}  // namespace gp::ref::detail
