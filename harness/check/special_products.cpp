#include "harness/check/special_products.hpp"

#include <cmath>
#include <functional>

#include "cases/special_values.hpp"

namespace gp {

namespace {

using Real = long double;

// A [rows, cols] view of a case input (rank 1: one row).
struct Matrix {
  const HostTensor& t;
  std::int64_t cols() const { return t.shape().dims().back(); }
  Real at(std::int64_t r, std::int64_t c) const { return t.get(r * cols() + c); }
};

// The set of one element: sum over k < n of term(k), in long double (IEEE 754 arithmetic there).
SpecialSet sum_of(DType t, std::int64_t n, const std::function<Real(std::int64_t)>& term) {
  Real s = 0;
  for (std::int64_t k = 0; k < n; ++k) s += term(k);
  SpecialSet set;
  set.any_zero_sign = true;
  set.add(t, s);
  return set;
}

// matmul: C = A B, dA = G B^T, dB = A^T G with G all ones.
SpecialExpectations matmul_sets(const Case& c) {
  const Matrix a{c.given->inputs.at(0)}, b{c.given->inputs.at(1)};
  const std::int64_t m = c.call.input_shapes[0][0], k = a.cols(), n = b.cols();
  SpecialExpectations e;
  e.gradients.resize(2);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      e.forward.push_back(sum_of(c.dtype, k, [&](std::int64_t l) { return a.at(i, l) * b.at(l, j); }));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 0; l < k; ++l)
      e.gradients[0].push_back(sum_of(c.dtype, n, [&](std::int64_t j) { return b.at(l, j); }));
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t j = 0; j < n; ++j)
      e.gradients[1].push_back(sum_of(c.dtype, m, [&](std::int64_t i) { return a.at(i, l); }));
  return e;
}

// linear: y = x W^T + b, dx = G W, dW = G^T x, db = the column sums of G (all ones).
SpecialExpectations linear_sets(const Case& c) {
  const Matrix x{c.given->inputs.at(0)}, w{c.given->inputs.at(1)}, bias{c.given->inputs.at(2)};
  const std::int64_t m = c.call.input_shapes[0][0], k = x.cols(), n = c.call.input_shapes[1][0];
  SpecialExpectations e;
  e.gradients.resize(3);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      e.forward.push_back(sum_of(c.dtype, k + 1, [&](std::int64_t l) {
        return l < k ? x.at(i, l) * w.at(j, l) : bias.at(0, j);  // the bias, added first or last
      }));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 0; l < k; ++l)
      e.gradients[0].push_back(sum_of(c.dtype, n, [&](std::int64_t j) { return w.at(j, l); }));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < k; ++l)
      e.gradients[1].push_back(sum_of(c.dtype, m, [&](std::int64_t i) { return x.at(i, l); }));
  for (std::int64_t j = 0; j < n; ++j) e.gradients[2].push_back(sum_of(c.dtype, m, [](std::int64_t) { return 1; }));
  return e;
}

}  // namespace

bool is_product_case(const Case& c) { return special_products(c.decl.op); }

SpecialExpectations product_expectations(const Case& c) {
  return c.decl.op == OpKind::matmul ? matmul_sets(c) : linear_sets(c);
}

}  // namespace gp
