#include "harness/large/complete_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "harness/check/checker.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/parallel_blocks.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/check/text.hpp"
#include "harness/large/sample.hpp"
#include "harness/large/sampled_reference.hpp"
#include "reference/product_bound.hpp"

namespace gp {

namespace {

// The relative error of one element that the check reports its power against (issue 26: one
// element off by 10^-3 anywhere in a 4096 x 4096 result).
constexpr double kProbeRelativeError = 1e-3;

// One block of rows compared: its comparison, and what the whole tensor's metrics add up from it.
struct BlockResult {
  Comparison cmp;
  double err2 = 0, ref2 = 0, largest_value = 0, largest_bound = 0;
  std::int64_t caught = 0;  // elements where an error of kProbeRelativeError of their value fails
};

// Rows [first, end) of a complete reference as a RefTensor of its elements.
ref::RefTensor block_of(const CompleteReference& r, std::int64_t first, std::int64_t end) {
  ref::RefTensor t;
  const auto begin = static_cast<std::size_t>(first * r.cols), stop = static_cast<std::size_t>(end * r.cols);
  t.shape = Shape{static_cast<std::int64_t>(stop - begin)};
  t.v.assign(r.value.begin() + static_cast<std::ptrdiff_t>(begin), r.value.begin() + static_cast<std::ptrdiff_t>(stop));
  t.err.resize(t.v.size());
  for (std::size_t i = 0; i < t.v.size(); ++i) {
    ref::ErrorBound& e = t.err[i];
    e.spec = r.spec[begin + i];
    e.det = e.spec + (r.single.empty() ? 0.0L : static_cast<long double>(r.single[begin + i]));
    e.prob = r.prob[begin + i];
    e.acc = std::numeric_limits<long double>::infinity();
  }
  return t;
}

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

// A long double channel as a double no smaller (a bound must not round down).
double up(long double x) {
  auto d = static_cast<double>(x);
  return static_cast<long double>(d) < x ? std::nextafter(d, std::numeric_limits<double>::infinity()) : d;
}

CompleteReference compute_complete(const SampledReference& reference, const SampledTensor& tensor, DType dtype) {
  CompleteReference out;
  const std::optional<ref::ProductForm> form =
      ref::product_form(reference.call, tensor.tensor, reference.inputs, reference.cotangent);
  if (!form) return out;
  out.applies = true;
  out.refusal = ref::product_form_refusal(*form);
  if (!out.refusal.empty()) return out;
  PhaseTimer timer(Phase::bounds);
  const ref::ProductBounds bounds(*form, dtype);
  out.rows = bounds.rows();
  out.cols = bounds.cols();
  const auto n = static_cast<std::size_t>(out.rows * out.cols);
  out.value.resize(n);
  out.prob.resize(n);
  out.spec.resize(n);
  if (form->x.cols == 1 && form->bias.empty()) out.single.resize(n);
  const std::int64_t block_rows =
      std::max<std::int64_t>(1, kCompleteBlockElements / std::max<std::int64_t>(1, out.cols));
  // The blocks on every core: each is a host GEMM (a 4096^3 one was 19 s on one core).
  for_each_block(out.rows, block_rows, [&](std::int64_t, std::int64_t first, std::int64_t end) {
    const ref::RefTensor rows = bounds.rows(first, end - first);
    const auto at = static_cast<std::size_t>(first * out.cols);
    for (std::size_t i = 0; i < rows.v.size(); ++i) {
      const ref::ErrorBound& e = rows.err[i];
      out.value[at + i] = rows.v[i];
      out.prob[at + i] = up(e.prob);
      out.spec[at + i] = up(e.spec);
      if (!out.single.empty()) out.single[at + i] = up(e.det - e.spec);
    }
  });
  return out;
}

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

const CompleteReference& CompleteReferences::get(const SampledReference& reference, const SampledTensor& tensor,
                                                 DType dtype) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex_);
    std::shared_ptr<Entry>& slot = entries_[tensor.tensor];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::call_once(entry->once, [&] { entry->value = compute_complete(reference, tensor, dtype); });
  return entry->value;
}

std::optional<CheckResult> complete_product_check(const CompleteCheckInput& in, std::uint64_t seed) {
  const CompleteReference& ref = in.reference.complete->get(in.reference, in.tensor, in.c.dtype);
  if (!ref.applies) return std::nullopt;
  const bool output = in.tensor.tensor == ref::kOutputTensor;
  CheckResult r = blank_result(in.c, in.device_id, output ? Direction::forward_complete : Direction::backward_complete,
                               in.tensor.tensor, seed);
  if (!ref.refusal.empty()) {
    r.verdict = Verdict::skip;
    r.reason_kind = ReasonKind::unsupported;
    r.reason = "no complete check: " + ref.refusal;
    return r;
  }
  PhaseTimer timer(Phase::comparisons);
  const std::int64_t numel = ref.rows * ref.cols;
  const std::int64_t block_rows =
      std::max<std::int64_t>(1, kCompleteBlockElements / std::max<std::int64_t>(1, ref.cols));
  std::vector<BlockResult> blocks(static_cast<std::size_t>((ref.rows + block_rows - 1) / block_rows));
  for_each_block(ref.rows, block_rows, [&](std::int64_t block, std::int64_t first, std::int64_t end) {
    const ref::RefTensor expected = block_of(ref, first, end);
    std::vector<std::int64_t> index(static_cast<std::size_t>((end - first) * ref.cols));
    std::iota(index.begin(), index.end(), first * ref.cols);
    const HostTensor got = gather_elements(in.full, index, expected.shape);
    blocks[static_cast<std::size_t>(block)] = compare_block(expected, got, in.tol, in.c.dtype, {&index, numel});
  });
  std::int64_t caught = 0;
  const Comparison all = merge(blocks, caught);
  const Metrics& m = all.metrics;
  r.metrics = m;
  r.metrics.tensor_elements = numel;
  r.verdict = all.verdict;
  r.reason = all.reason;
  r.tolerance =
      in.tol.describe() +
      "; every element, against a bound at or above its Tracked one from the product's "
      "partial sums every K/64 terms (docs/scale.md, \"Every element\"): "
      "an element off by more than " +
      format_g(m.detection_threshold, 2) + " of the tensor's largest magnitude fails, one off by " +
      format_g(kProbeRelativeError, 1) + " of its own value fails at " +
      format_g(100.0 * static_cast<double>(caught) / static_cast<double>(std::max<std::int64_t>(1, numel)), 4) +
      " % of the elements";
  return r;
}

}  // namespace gp
