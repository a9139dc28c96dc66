#include "harness/large/block_compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/check/text.hpp"

namespace gp {

BlockResult compare_block(const ref::RefTensor& expected, const HostTensor& got, const Tolerance& tol, DType dtype,
                          const SamplePositions& positions) {
  BlockResult b{compare_to_reference(expected, got, tol, dtype, {}, positions)};
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    const double e = static_cast<double>(expected.v[static_cast<std::size_t>(i)]), g = got.get(i);
    if (std::isfinite(g) && std::isfinite(e)) {
      b.err2 += (g - e) * (g - e);
      b.ref2 += e * e;
    }
    const double bound = tol.bound(expected.err[static_cast<std::size_t>(i)], e);
    b.largest_value = std::max(b.largest_value, std::fabs(e));
    b.largest_bound = std::max(b.largest_bound, bound);
    // The comparison leaves the expected value's rounding to the dtype out of the error.
    b.caught += kProbeRelativeError * std::fabs(e) > bound + unit_roundoff(dtype) * std::fabs(e);
  }
  return b;
}

namespace {

// The blocks' comparisons as one, in block order: counts add up, maxima are the largest, the
// worst element and the verdict come from the block that fails by the most. `caught`: the
// elements where an error of kProbeRelativeError of their value fails.
Comparison merge(const std::vector<BlockResult>& blocks, std::int64_t& caught) {
  Comparison all;
  caught = 0;
  Metrics& m = all.metrics;
  double err2 = 0, ref2 = 0, largest_value = 0, largest_bound = 0;
  double best_sensitivity = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const Comparison& block = blocks[k].cmp;
    const Metrics& b = block.metrics;
    m.elements += b.elements;
    m.nonfinite += b.nonfinite;
    m.max_abs = std::max(m.max_abs, b.max_abs);
    m.max_rel = std::max(m.max_rel, b.max_rel);
    m.max_ulp = std::max(m.max_ulp, b.max_ulp);
    const bool worse = k == 0 || b.margin > m.margin;
    if (worse) {
      m.margin = b.margin;
      m.bound = b.bound;
      m.worst = b.worst;
    }
    if (block.verdict != Verdict::pass && (all.verdict == Verdict::pass || worse)) {
      all.verdict = block.verdict;
      all.reason = block.reason;
    }
    if (b.sensitivity_ulp < best_sensitivity) {
      best_sensitivity = b.sensitivity_ulp;
      m.sensitivity_ulp = b.sensitivity_ulp;
      m.budget_ulp = b.budget_ulp;
    }
    err2 += blocks[k].err2;
    ref2 += blocks[k].ref2;
    largest_value = std::max(largest_value, blocks[k].largest_value);
    largest_bound = std::max(largest_bound, blocks[k].largest_bound);
    caught += blocks[k].caught;
  }
  m.nmse = ref2 > 0 ? err2 / ref2 : err2;
  if (largest_value > 0) m.detection_threshold = largest_bound / largest_value;
  return all;
}

}  // namespace

void judge_blocks(CheckResult& r, const std::vector<BlockResult>& blocks, std::int64_t numel, const Tolerance& tol,
                  const std::string& how) {
  std::int64_t caught = 0;
  const Comparison all = merge(blocks, caught);
  const Metrics& m = all.metrics;
  r.metrics = m;
  r.metrics.tensor_elements = numel;
  r.verdict = all.verdict;
  r.reason = all.reason;
  r.tolerance =
      tol.describe() + "; " + how + ": an element off by more than " + format_g(m.detection_threshold, 2) +
      " of the tensor's largest magnitude fails, one off by " + format_g(kProbeRelativeError, 1) +
      " of its own value fails at " +
      format_g(100.0 * static_cast<double>(caught) / static_cast<double>(std::max<std::int64_t>(1, numel)), 4) +
      " % of the elements";
}

}  // namespace gp
