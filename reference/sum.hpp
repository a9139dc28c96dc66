// Sum<R>: the accumulations of the reference (reductions, dot products, softmax denominators,
// broadcast gradients, losses). For long double and MpReal a plain running sum. For Tracked it
// bounds the roundings of the kernel's own accumulation in two ways, both carried:
//   acc:  worst case, sum over k >= 2 of the rounding u |s_k| of the partial sum s_k,
//   prob: sqrt(sum of squares of those roundings): the roundings are independent with mean
//         zero, so their total is sub-Gaussian with that scale (Hoeffding; Higham & Mary,
//         "A New Approach to Probabilistic Rounding Error Analysis", 2019).
// The kernel's order is not the reference's (lanes, blocks, a tree), and its partial sums are
// sums of other subsets of the terms. Each sum takes the largest of three estimates of them:
//   - the sequential order's own partial sums s_k;
//   - a random walk, sqrt(sum_{i<=k} t_i^2): for terms of random sign, the size of a partial sum
//     of k terms in any order. Where the sequential sums happen to cancel (a small result of
//     large terms) another order's do not: Eigen's two-lane f64 dot product erred by 5.0x the
//     sequential probabilistic scale (linear 16x128|7x128|7, seed 46), 1.25x this one;
//   - a balanced tree of depth ceil(log2 n): depth * u sum|t| (acc), depth * (u max|s_k|)^2
//     (prob, for one dominant term).
// A partial sum is charged even where it is exact in the sequential order: in the kernel's
// order it need not be (PoCL's tree sum of 7 f64 terms erred by 0.83 of a bound that assumed
// so). add_product(a, b) also counts the rounding of the product among the accumulation's
// roundings (a fused multiply-add has none: the bound then overestimates slightly). Exact terms
// that are multiples of one 2^g with sum|t| < 2^(g + digits) add exactly in every order: no
// accumulation rounding then (small-integer matmuls are exact on every device).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/tracked.hpp"

namespace gp::ref {

template <class R>
class Sum {
 public:
  void add(const R& t) { s_ += t; }
  void add_product(const R& a, const R& b) { s_ += a * b; }
  R result() const { return s_; }

 private:
  R s_ = R(0);
};

template <>
class Sum<Tracked> {
 public:
  void add(const Tracked& t) {
    const bool clean = without_error(t);
    if (!clean) add_error(t.e);
    add_term(t.v, clean || t.exact());
  }
  void add_product(const Tracked& a, const Tracked& b) {
    // Terms without error (a node's bound at exact inputs, every term of its dot products) leave
    // the terms' error as it is: adding zeros cost a third of the Tracked dot product.
    const bool a_clean = without_error(a), b_clean = without_error(b);
    const bool exact_operands = (a_clean || a.exact()) && (b_clean || b.exact());
    if (!a_clean || !b_clean) {
      ErrorBound e;
      propagate(e, a.e, b.v);
      propagate(e, b.e, a.v);
      add_error(e);
    }
    const long double t = a.v * b.v;
    const ExactProduct p = exact_operands ? exact_product(a.v, b.v, t) : ExactProduct{};
    const long double r = rounding_given(t, p.representable);
    round_lin_ += r;
    round_sq_ += r * r;
    add_term(t, exact_operands && r == 0, p.representable ? &p.odd : nullptr);
  }
  Tracked result() const {
    Tracked out;
    out.v = s_;
    out.e = terms_;
    // A kernel's partial sums are sums of subsets of the terms, at most the sum of the positive or
    // of the negative ones in size (a lane of one sign reaches it): once that reaches the overflow
    // threshold some order overflows, whatever the sequential sums do (docs/error-model.md, Range).
    if (n_ > 1 && std::max(positive_sum_, negative_sum_) >= rounding_unit().overflow) {
      out.e.acc = out.e.prob = std::numeric_limits<long double>::infinity();
      return out;
    }
    if (exact_in_any_order()) {
      out.e.det += round_lin_;
      return out;
    }
    if (n_ > 1) {
      const long double depth = std::ceil(std::log2(static_cast<long double>(n_)));
      const long double tree_lin = depth * compute_ulp(abs_sum_) / 2;
      const long double h_max = compute_ulp(max_partial_) / 2;
      out.e.acc += std::max({seq_lin_, walk_lin_, tree_lin}) + round_lin_;
      out.e.prob += std::sqrt(std::max({seq_sq_, walk_sq_, depth * h_max * h_max}) + round_sq_);
    } else {  // one term: its product's rounding is a single rounding like any other
      out.e.det += round_lin_;
    }
    return out;
  }

 private:
  bool exact_in_any_order() const {
    if (!terms_exact_ || abs_sum_ == 0) return terms_exact_;
    const TrackingContext& c = tracking_context();
    return abs_sum_ < std::ldexp(1.0L, lowest_bit_ + c.digits) && lowest_bit_ >= c.min_exponent - c.digits + 1;
  }

  // Every error channel zero, read as integers: four long-double comparisons per operand were a
  // tenth of the dot product.
  static bool without_error(const Tracked& x) {
    return detail::is_zero(x.e.det) && detail::is_zero(x.e.acc) && detail::is_zero(x.e.prob) &&
           detail::is_zero(x.e.spec);
  }
  // propagate(terms_, e, 1), whose products by 1 are exact.
  void add_error(const ErrorBound& e) {
    terms_.det += e.det;
    terms_.acc += e.acc;
    terms_.prob += e.prob;
    terms_.spec += e.spec;
  }
  // `odd`: t's odd part where the caller knows it (a product's, from its operands' bits).
  void add_term(long double t, bool exact, const detail::Odd* odd = nullptr) {
    terms_exact_ = terms_exact_ && exact;
    // The lowest bit matters only while every term is exact (exact_in_any_order).
    if (terms_exact_ && t != 0) lowest_bit_ = std::min(lowest_bit_, odd ? odd->e : lowest_bit_exponent(t));
    abs_sum_ += std::fabs(t);
    (t > 0 ? positive_sum_ : negative_sum_) += std::fabs(t);
    s_ = n_ == 0 ? t : s_ + t;
    squares_ += t * t;
    if (n_++ > 0) {
      const long double r = rounding_of(s_, false), w = rounding_of(std::sqrt(squares_), false);
      seq_lin_ += r;
      seq_sq_ += r * r;
      walk_lin_ += w;
      walk_sq_ += w * w;
    }
    max_partial_ = std::max(max_partial_, std::fabs(s_));
  }

  long double s_ = 0, abs_sum_ = 0, positive_sum_ = 0, negative_sum_ = 0, max_partial_ = 0, squares_ = 0;
  long double seq_lin_ = 0, seq_sq_ = 0, walk_lin_ = 0, walk_sq_ = 0, round_lin_ = 0, round_sq_ = 0;
  ErrorBound terms_;
  std::int64_t n_ = 0;
  bool terms_exact_ = true;
  int lowest_bit_ = 1 << 20;
};

}  // namespace gp::ref
