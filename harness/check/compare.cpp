#include "harness/check/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "harness/check/poison.hpp"
#include "harness/check/text.hpp"

namespace gp {

namespace {

// Sensitivity bookkeeping: the element whose slack, in ULPs of its result, is smallest.
struct Sensitivity {
  double best = std::numeric_limits<double>::infinity();
  double budget = std::numeric_limits<double>::quiet_NaN();
  void add(double got, double error, double bound, double spec, DType dtype, const Tolerance& tol) {
    if (got == 0 || !std::isfinite(got) || !std::isfinite(bound)) return;
    const double ulp = ulp_of(dtype, std::fabs(got));
    const double s = std::max(0.0, bound - error) / ulp;
    if (s >= best) return;
    best = s;
    budget = (spec + (tol.rounds_to_storage ? ulp / 2 : 0.0)) / ulp;
  }
};

// The margin counts the error beyond the rounding to the dtype that even the best result has:
//   (|got - e| - |round(e) - e|) / (bound - |round(e) - e|),
// which is <= 1 exactly when |got - e| <= bound, and 0 for the correctly rounded result (a sharp
// bound, half an ULP for a correctly rounded operation, would otherwise show such a result at
// up to 0.999). Where the bound is below that rounding (an exact op: both zero) it is |got - e| /
// bound.
double margin_of(double error, double rounding, double bound) {
  if (bound > rounding) return std::max(0.0, error - rounding) / (bound - rounding);
  if (error == 0) return 0.0;
  return bound > 0 ? error / bound : std::numeric_limits<double>::infinity();
}

}  // namespace

Comparison compare_to_reference(const ref::RefTensor& expected, const HostTensor& got, const Tolerance& tol,
                                DType dtype, const std::function<std::vector<double>(std::int64_t)>& inputs_at,
                                const SamplePositions& positions) {
  Comparison c;
  Metrics& m = c.metrics;
  m.elements = got.numel();
  m.tensor_elements = positions.index ? positions.numel : got.numel();
  auto whole = [&](std::int64_t i) { return positions.index ? positions.index->at(static_cast<std::size_t>(i)) : i; };
  if (static_cast<std::int64_t>(expected.v.size()) != got.numel()) {
    c.verdict = Verdict::fail;
    c.reason = "size mismatch: expected " + std::to_string(expected.v.size()) + " elements, got " +
               std::to_string(got.numel());
    return c;
  }
  const bool has_err = expected.err.size() == expected.v.size();
  double err2 = 0, ref2 = 0;
  std::int64_t worst = -1, poisoned = 0, first_poisoned = -1, unbounded = 0, first_unbounded = -1;
  Sensitivity sens;
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    const auto ii = static_cast<std::size_t>(i);
    const auto e_exact = expected.v[ii];  // may exceed double's range
    const double e = static_cast<double>(e_exact);
    const double g = got.get(i);
    const ref::ErrorBound eb = has_err ? expected.err[ii] : ref::ErrorBound{};
    // An infinite reference (a unary op read at a flushed zero: harness/check/other_readings.hpp)
    // is met by that infinity alone.
    if (std::isinf(e_exact) && g == e) continue;
    const double b = tol.bound(eb, e);
    // A reference value beyond the dtype's range must come back as the infinity it rounds to.
    const double e_rounded = round_to(dtype, e);
    if (std::isinf(e_rounded) && std::isfinite(e_exact)) {
      const bool overflowed =
          g == e_rounded || (std::isfinite(g) && std::fabs(g) >= std::fabs(e) * (1 - 4 * unit_roundoff(dtype)));
      // NaN or the other infinity from infinities of intermediates (inf - inf, or -inf left where
      // an inf - inf did not form), where the bound says they overflow: a layer_norm gradient
      // with a weight near f64's largest value came back as -inf on PoCL and NVIDIA's Vulkan,
      // where its w g and the row's sum of them overflow (found by hunt).
      if (!overflowed && !std::isfinite(g) && !std::isfinite(b)) {
        if (unbounded++ == 0) first_unbounded = i;
        continue;
      }
      if (!overflowed) {
        ++m.nonfinite;
        worst = i;
        m.margin = std::numeric_limits<double>::infinity();
      }
      continue;
    }
    // An intermediate of the formulation past the kernel's range (reference/tracked.hpp,
    // rounding_of): no bound holds (infinite, or NaN where it met a zero derivative), so the
    // element is not judged, and the check says so.
    if (!std::isfinite(b)) {
      if (unbounded++ == 0) first_unbounded = i;
      continue;
    }
    if (e != 0 && b >= std::fabs(e)) ++m.insignificant;
    if (!std::isfinite(g) && std::isfinite(e)) {
      ++m.nonfinite;
      if (is_poison(got, i) && poisoned++ == 0) first_poisoned = i;
      if (worst < 0 || std::isfinite(m.margin)) {
        worst = i;
        m.margin = std::numeric_limits<double>::infinity();
        m.bound = b;
      }
      continue;
    }
    // In long double: rounding the reference to double first would add half an ULP of f64.
    const double d = static_cast<double>(std::fabs(static_cast<long double>(g) - e_exact));
    err2 += d * d;
    ref2 += e * e;
    m.max_abs = std::max(m.max_abs, d);
    if (e != 0) m.max_rel = std::max(m.max_rel, d / std::fabs(e));
    m.max_ulp = std::max(m.max_ulp, ulp_distance(dtype, g, round_to(dtype, e)));
    sens.add(g, d, b, static_cast<double>(eb.spec), dtype, tol);
    const double margin =
        margin_of(d, static_cast<double>(std::fabs(static_cast<long double>(e_rounded) - e_exact)), b);
    if (worst < 0 || margin > m.margin) {
      worst = i;
      m.margin = margin;
      m.bound = b;
    }
  }
  m.nmse = ref2 > 0 ? err2 / ref2 : err2;
  if (std::isfinite(sens.best)) {
    m.sensitivity_ulp = sens.best;
    m.budget_ulp = sens.budget;
  }
  if (worst >= 0) {
    m.worst.index = whole(worst);
    m.worst.expected = static_cast<double>(expected.v[static_cast<std::size_t>(worst)]);
    m.worst.got = got.get(worst);
    m.worst.bound = m.bound;
    if (inputs_at) m.worst.inputs = inputs_at(whole(worst));
  }
  if (poisoned > 0) {
    c.verdict = Verdict::fail;
    c.reason = std::to_string(poisoned) +
               " element(s) still hold the harness's poison NaN: never written, or accumulated into (first at index " +
               std::to_string(whole(first_poisoned)) + ")";
  } else if (m.nonfinite > 0) {
    c.verdict = Verdict::fail;
    c.reason = std::to_string(m.nonfinite) + " non-finite value(s) where the reference is finite (first at index " +
               std::to_string(whole(worst)) + ")";
  } else if (m.margin > 1) {
    c.verdict = Verdict::fail;
    // The error itself, not margin x bound: the margin leaves out the rounding to the dtype, and
    // under a bound of 0 (an exact result expected) the product is not a number.
    const long double error = std::fabs(expected.v[static_cast<std::size_t>(worst)] - m.worst.got);
    // Every digit the dtype holds, and the distance in its ULPs: six digits printed "expected
    // 0.295082, got 0.295082" for a two-ULP error of f32.
    c.reason = "error " + format_g(static_cast<double>(error)) + " exceeds bound " + format_g(m.bound) + " at index " +
               std::to_string(whole(worst)) + " (expected " + format_g(m.worst.expected, 17) + ", got " +
               format_g(m.worst.got, round_trip_digits(dtype)) + ", " +
               format_g(ulp_distance(dtype, m.worst.got, round_to(dtype, m.worst.expected)), 3) + " ULP of " +
               std::string(dtype_name(dtype)) + " from the expected value rounded to it)";
  } else if (unbounded > 0) {
    c.verdict = Verdict::mistrusted;
    c.reason = std::to_string(unbounded) +
               " element(s) outside the error model's range, not judged: an intermediate of the formulation, or "
               "its error, overflows the kernel's arithmetic there (first at index " +
               std::to_string(whole(first_unbounded)) + "; docs/error-model.md, Range)";
  }
  return c;
}

std::vector<std::int64_t> worst_elements(const ref::RefTensor& expected, const HostTensor& got, int count,
                                         std::int64_t check_worst) {
  const auto n = static_cast<std::size_t>(got.numel());
  if (expected.v.size() != n || count <= 0) return {};
  const bool bounded = expected.err.size() == n;
  std::vector<double> beyond(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(got.get(static_cast<std::int64_t>(i)) - static_cast<double>(expected.v[i]));
    const double b = bounded ? propagated_error(expected.err[i]) : 0.0;
    beyond[i] = std::isnan(d) ? std::numeric_limits<double>::infinity() : !bounded ? d : d > 0 ? d / b : 0.0;
  }
  std::vector<std::int64_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  const auto kept = std::min<std::size_t>(static_cast<std::size_t>(count), n);
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(kept), idx.end(),
                    [&](std::int64_t a, std::int64_t b) {
                      return beyond[static_cast<std::size_t>(a)] > beyond[static_cast<std::size_t>(b)];
                    });
  idx.resize(kept);
  if (check_worst >= 0 && static_cast<std::size_t>(check_worst) < n &&
      std::find(idx.begin(), idx.end(), check_worst) == idx.end())
    idx.back() = check_worst;
  return idx;
}

std::string mistrust_reason(const ref::RefTensor& expected, bool sparse_ok) {
  std::int64_t zeros = 0;
  for (auto v : expected.v) zeros += v == 0;
  const auto n = static_cast<std::int64_t>(expected.v.size());
  if (n == 0) return "nothing to compare";
  if (zeros == n)
    return "the reference is all zeros: the comparison cannot tell a right kernel from one that writes zeros";
  if (!sparse_ok && n >= 16 && zeros * 10 > n * 9)
    return std::to_string(zeros * 100 / n) + "% of the reference is zero: the comparison proves little";
  return {};
}

}  // namespace gp
