// Every element of a matrix product's result at once, for the large tier's complete check
// (docs/scale.md, "Every element"): the value from host GEMMs in double, and per element an
// ErrorBound no smaller than the one the Tracked evaluation (reference/sum.hpp) gives there, from
// the product's partial sums at chunk boundaries and per-chunk norms of its operands instead of
// the Tracked evaluation's work per term (a 4096^3 GEMM: 6.9 * 10^10 Tracked multiply-adds).
//
// A Tracked dot product of exact terms t_1..t_n (partial sums s_k, S_k = sum_{i<=k} t_i^2) bounds
// its roundings by prob = sqrt(max(seq, walk, depth h^2) + products), with seq = sum rho(s_k)^2,
// walk = sum rho(sqrt(S_k))^2, h the half ULP of max |s_k|, products = sum rho(t_k)^2 and
// rho(v) <= u |v| + floor (+ the smallest normal number on a device that flushes). Here, per chunk
// of K / 64 terms (4 to kProductChunk), |s_k| <= |s at the chunk's start| + ||x||_2 ||y||_2 over the chunk
// (Cauchy-Schwarz) and sum over the chunk of t^2 <= ||x||_4^2 ||y||_4^2, with the chunk starts'
// partial sums from the GEMM and its own error added. The result is a bound of the Tracked bound,
// looser by about the chunk's share of the partial sums (docs/scale.md gives the factor measured).
// Internal to the large tier's complete check; tests/unit/test_product_bound.cpp holds it at or
// above the Tracked bound element by element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/op.hpp"
#include "core/tensor.hpp"
#include "reference/element_slice.hpp"
#include "reference/reference.hpp"

namespace gp::ref {

inline constexpr std::int64_t kProductChunk = 64;

// A row-major matrix of doubles (every case dtype widens to double exactly).
struct DenseMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> v;
  double operator()(std::int64_t r, std::int64_t c) const { return v[static_cast<std::size_t>(r * cols + c)]; }
};

// Element (i, j) of a product form is sum_p x(i, p) y(p, j) over p ascending, the order of the
// reference's dot product, then bias[j] as one more term when there is a bias. `products`: each
// term is a product the kernel rounds; otherwise x is one row of ones and the terms are y's
// elements, added (linear's bias gradient, a column sum).
struct ProductForm {
  DenseMatrix x, y;
  std::vector<double> bias;  // empty: none
  bool products = true;
};

// The product form of `tensor` (kOutputTensor or an input's gradient) of a 2-D matmul or a linear
// call, from its inputs and cotangent, laid out as the tensor is stored; nullopt for other ops.
std::optional<ProductForm> product_form(const OpCall& call, int tensor, const std::vector<HostTensor>& inputs,
                                        const HostTensor& cotangent);

// Why the form's bound cannot be computed in double (empty when it can): a term whose square
// would leave double's normal range.
std::string product_form_refusal(const ProductForm& f);

// The bounds of one form for a device of `dtype`, in blocks of rows. A matrix product calls no
// library function: the bound is every math profile's. It holds whether or not the device flushes
// subnormal results (it charges the flush's loss too: at most the smallest normal number per
// rounding), so one bound serves every device.
class ProductBounds {
 public:
  ProductBounds(const ProductForm& form, DType dtype);
  std::int64_t rows() const { return form_.x.rows; }
  std::int64_t cols() const { return form_.y.cols; }
  // Rows [first, first + count) of the result: `v` the values (the double GEMM's sums), `err` per
  // element an ErrorBound at or above the Tracked evaluation's; its `spec` channel carries the
  // double GEMM's own error, counted once, and `acc` is infinite (the checked bound then takes
  // lambda * prob, which is at least what the Tracked bound takes).
  RefTensor rows(std::int64_t first, std::int64_t count) const;

 private:
  template <class S>  // the partial sums' type: double, long double for f64
  RefTensor rows_in(std::int64_t first, std::int64_t count) const;

  const ProductForm& form_;                // outlives this
  int digits_ = 24;                        // the compute dtype's significand bits
  long double u_, floor_, phi_;            // the rounding unit, half the spacing below normal, floor + smallest normal
  std::vector<double> y_norm2_, y_norm4_;  // per chunk q and column j (q * cols + j): ||y||_2, ||y||_4^2
};

}  // namespace gp::ref
