#include "harness/large/complete_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/parallel_blocks.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/check/text.hpp"
#include "harness/large/block_compare.hpp"
#include "harness/large/sample.hpp"
#include "harness/large/sampled_reference.hpp"
#include "reference/product_bound.hpp"

namespace gp {

namespace {

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
  judge_blocks(r, blocks, numel, in.tol,
               "every element, against a bound at or above its Tracked one from the product's partial sums "
               "every K/64 terms (docs/scale.md, \"Every element\")");
  return r;
}

}  // namespace gp
