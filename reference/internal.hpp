// Internal vocabulary of the reference: per-family entry points (dispatch.cpp validates the call
// before handing it to them), small tensor helpers, and the stable softmax row shared by
// logsumexp, softmax, log_softmax, cross_entropy and gumbel_softmax. Not a public header.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reference/reference.hpp"

namespace gp::ref::detail {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }
inline Real mag(Real x) { return std::fabs(x); }
inline Real real(std::int64_t n) { return static_cast<Real>(n); }

// Throws gp::Error("reference: <op> [<case>]: <what>").
[[noreturn]] void fail(const OpCall& call, const std::string& what);

// A tensor of `shape` with value and scale zero-filled.
RefTensor zeros(const Shape& shape);
// The gradient entry of an input that receives none: shape set, v and scale empty.
RefTensor no_grad(const Shape& shape);
// Layout results are exact: scale = |value|.
void set_exact_scale(RefTensor& t);

// --- per-family entry points -------------------------------------------------------------------
// Inputs have been checked against call.input_shapes and dout against call.output_shape.
#define GP_REF_FAMILY_DECL(family)                                                  \
  RefTensor family##_forward(const OpCall& call, const std::vector<RefTensor>& in); \
  std::vector<RefTensor> family##_vjp(const OpCall& call, const std::vector<RefTensor>& in, const RefTensor& dout);
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

// --- rows along an axis ------------------------------------------------------------------------
// Element j of row (o, i) of a tensor viewed as [outer, n, inner] sits at (o*n + j)*inner + i.
inline std::int64_t row_index(const AxisSplit& s, std::int64_t o, std::int64_t i, std::int64_t j) {
  return (o * s.n + j) * s.inner + i;
}
std::vector<Real> gather_row(const std::vector<Real>& v, const AxisSplit& s, std::int64_t o, std::int64_t i);

// --- stable softmax of one row, with its error model --------------------------------------------
// p_j = exp(x_j - m) / S, S = sum_k exp(x_k - m), m = max_k x_k. A correct float kernel computes
// p_j with relative error <= K * u * rel[j]:
//   rel_j = n (accumulating S, positive terms) + 2 (exp and the division) + |x_j - m| (rounding of
//           the exp argument) + spread,  spread = sum_k p_k (1 + |x_k - m|) (errors of S's terms)
//           + xs_j + sum_k p_k xs_k when the inputs themselves carry absolute error scales xs
//           (gumbel_softmax: x = (l + noise) / tau is computed by the kernel).
struct SoftmaxRow {
  Real max = 0;      // m
  Real log_sum = 0;  // L = log S; logsumexp = m + L
  std::vector<Real> p;
  std::vector<Real> rel;
  Real spread = 0;
  // Error scale of logsumexp = m + L: |m| + |L| + |m + L| + n + spread (see README).
  Real lse_scale = 0;
};
SoftmaxRow softmax_row(const std::vector<Real>& x, const std::vector<Real>* input_scale = nullptr);

// VJP of softmax for one row: g_j = p_j (dy_j - <dy, p>), with its error scale
//   |g_j| (rel_j + 1) + p_j (|dy_j| + |<dy,p>| + sum_k |dy_k| p_k (n + rel_k)).
void softmax_row_vjp(const SoftmaxRow& row, const std::vector<Real>& dy, std::vector<Real>& g,
                     std::vector<Real>& g_scale);

}  // namespace gp::ref::detail
