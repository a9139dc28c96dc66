#include "harness/large/complete_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "harness/check/checker.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/parallel_blocks.hpp"
#include "harness/check/text.hpp"
#include "harness/large/sample.hpp"
#include "reference/product_bound.hpp"

namespace gp {

namespace {

// One block of rows compared: its comparison, and what the whole tensor's metrics add up from it.
struct BlockResult {
  Comparison cmp;
  double err2 = 0, ref2 = 0, largest_value = 0, largest_bound = 0;
};

BlockResult compare_block(const ref::RefTensor& expected, const HostTensor& got, const Tolerance& tol, DType dtype,
                          const SamplePositions& positions) {
  BlockResult b{compare_to_reference(expected, got, tol, dtype, {}, positions)};
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    const double e = static_cast<double>(expected.v[static_cast<std::size_t>(i)]), g = got.get(i);
    if (std::isfinite(g) && std::isfinite(e)) {
      b.err2 += (g - e) * (g - e);
      b.ref2 += e * e;
    }
    b.largest_value = std::max(b.largest_value, std::fabs(e));
    b.largest_bound = std::max(b.largest_bound, tol.bound(expected.err[static_cast<std::size_t>(i)], e));
  }
  return b;
}

// The blocks' comparisons as one, in block order: counts add up, maxima are the largest, the
// worst element and the verdict come from the block that fails by the most.
Comparison merge(const std::vector<BlockResult>& blocks) {
  Comparison all;
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
  }
  m.nmse = ref2 > 0 ? err2 / ref2 : err2;
  if (largest_value > 0) m.detection_threshold = largest_bound / largest_value;
  return all;
}

}  // namespace

std::optional<CheckResult> complete_product_check(const CompleteCheckInput& in, std::uint64_t seed) {
  const bool output = in.tensor.tensor == ref::kOutputTensor;
  const std::optional<ref::ProductForm> form =
      ref::product_form(in.reference.call, in.tensor.tensor, in.reference.inputs, in.reference.cotangent);
  if (!form) return std::nullopt;
  CheckResult r = blank_result(in.c, in.device_id, output ? Direction::forward_complete : Direction::backward_complete,
                               in.tensor.tensor, seed);
  if (const std::string why = ref::product_form_refusal(*form); !why.empty()) {
    r.verdict = Verdict::skip;
    r.reason_kind = ReasonKind::unsupported;
    r.reason = "no complete check: " + why;
    return r;
  }
  const ref::ProductBounds bounds(*form, in.c.dtype, in.math);
  const std::int64_t cols = bounds.cols(), numel = bounds.rows() * cols;
  const std::int64_t block_rows = std::max<std::int64_t>(1, kCompleteBlockElements / std::max<std::int64_t>(1, cols));
  // The blocks on every core: each is a host GEMM (a 4096^3 one was 19 s on one core).
  std::vector<BlockResult> blocks(static_cast<std::size_t>((bounds.rows() + block_rows - 1) / block_rows));
  for_each_block(bounds.rows(), block_rows, [&](std::int64_t block, std::int64_t first, std::int64_t end) {
    ref::RefTensor expected = bounds.rows(first, end - first);
    expected.shape = Shape{(end - first) * cols};
    std::vector<std::int64_t> index(static_cast<std::size_t>((end - first) * cols));
    std::iota(index.begin(), index.end(), first * cols);
    const HostTensor got = gather_elements(in.full, index, expected.shape);
    blocks[static_cast<std::size_t>(block)] = compare_block(expected, got, in.tol, in.c.dtype, {&index, numel});
  });
  const Comparison all = merge(blocks);
  const Metrics& m = all.metrics;
  r.metrics = m;
  r.metrics.tensor_elements = numel;
  r.verdict = all.verdict;
  r.reason = all.reason;
  r.tolerance = in.tol.describe() +
                "; every element, against a bound at or above its Tracked one from the product's "
                "partial sums every K/64 terms (docs/scale.md, \"Every element\"): "
                "an element off by more than " +
                format_g(m.detection_threshold, 2) + " of the tensor's largest magnitude fails";
  return r;
}

}  // namespace gp
