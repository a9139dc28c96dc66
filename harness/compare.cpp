#include "harness/compare.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "harness/poison.hpp"
#include "harness/text.hpp"

namespace gp {

Comparison compare_to_reference(const ref::RefTensor& expected, const HostTensor& got, const Tolerance& tol,
                                DType dtype, double weight_abs,
                                const std::function<std::vector<double>(std::int64_t)>& inputs_at) {
  Comparison c;
  Metrics& m = c.metrics;
  m.elements = got.numel();
  if (static_cast<std::int64_t>(expected.v.size()) != got.numel()) {
    c.verdict = Verdict::fail;
    c.reason = "size mismatch: expected " + std::to_string(expected.v.size()) + " elements, got " +
               std::to_string(got.numel());
    return c;
  }
  double err2 = 0, ref2 = 0;
  std::int64_t worst = -1, poisoned = 0, first_poisoned = -1;
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    const auto e_exact = expected.v[static_cast<std::size_t>(i)];  // may exceed double's range
    const double e = static_cast<double>(e_exact);
    const double g = got.get(i);
    const double b = tol.bound(expected.scale[static_cast<std::size_t>(i)], e, weight_abs);
    // A reference value beyond the dtype's range must come back as the infinity it rounds to.
    const double e_rounded = round_to(dtype, e);
    if (std::isinf(e_rounded) && std::isfinite(e_exact)) {
      if (g != e_rounded && !(std::isfinite(g) && std::fabs(g) >= std::fabs(e) * (1 - 4 * unit_roundoff(dtype)))) {
        ++m.nonfinite;
        worst = i;
        m.margin = std::numeric_limits<double>::infinity();
      }
      continue;
    }
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
    const double d = std::fabs(g - e);
    err2 += d * d;
    ref2 += e * e;
    m.max_abs = std::max(m.max_abs, d);
    if (e != 0) m.max_rel = std::max(m.max_rel, d / std::fabs(e));
    m.max_ulp = std::max(m.max_ulp, ulp_distance(dtype, g, round_to(dtype, e)));
    const double margin = d == 0 ? 0.0 : (b > 0 ? d / b : std::numeric_limits<double>::infinity());
    if (worst < 0 || margin > m.margin) {
      worst = i;
      m.margin = margin;
      m.bound = b;
    }
  }
  m.nmse = ref2 > 0 ? err2 / ref2 : err2;
  if (worst >= 0) {
    m.worst.index = worst;
    m.worst.expected = static_cast<double>(expected.v[static_cast<std::size_t>(worst)]);
    m.worst.got = got.get(worst);
    m.worst.bound = m.bound;
    if (inputs_at) m.worst.inputs = inputs_at(worst);
  }
  if (poisoned > 0) {
    c.verdict = Verdict::fail;
    c.reason = std::to_string(poisoned) +
               " element(s) still hold the harness's poison NaN: never written, or accumulated into (first at index " +
               std::to_string(first_poisoned) + ")";
  } else if (m.nonfinite > 0) {
    c.verdict = Verdict::fail;
    c.reason = std::to_string(m.nonfinite) + " non-finite value(s) where the reference is finite (first at index " +
               std::to_string(worst) + ")";
  } else if (m.margin > 1) {
    c.verdict = Verdict::fail;
    c.reason = "error " + format_g(std::fabs(m.worst.got - m.worst.expected)) + " exceeds bound " + format_g(m.bound) +
               " at index " + std::to_string(worst) + " (expected " + format_g(m.worst.expected) + ", got " +
               format_g(m.worst.got) + ")";
  }
  return c;
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
