#include "harness/large/complete_lines.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "core/parallel_blocks.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/large/block_compare.hpp"
#include "harness/large/sample.hpp"
#include "harness/large/sampled_reference.hpp"
#include "reference/element_slice.hpp"
#include "reference/streamed_line.hpp"

namespace gp {

namespace {

// The tensor's elements grouped by line, in blocks of whole lines up to about
// kCompleteBlockElements elements, so that a block evaluates each of its lines once (a line
// longer than that is a block of its own).
LineReference line_blocks(const OpCall& call, int tensor, std::int64_t numel) {
  LineReference b;
  b.order.resize(static_cast<std::size_t>(numel));
  std::iota(b.order.begin(), b.order.end(), std::int64_t{0});
  const auto n = static_cast<std::size_t>(numel);
  const auto block = static_cast<std::size_t>(kCompleteBlockElements);
  if (ref::has_elementwise_slices(call, tensor)) {  // every element is its own line: any block is whole lines
    for (std::size_t at = 0; at < n; at += block) b.starts.push_back(at);
    b.starts.push_back(n);
    return b;
  }
  std::vector<std::int64_t> line(n);
  for (std::size_t i = 0; i < n; ++i) line[i] = ref::slice_key(call, tensor, static_cast<std::int64_t>(i)).line;
  std::stable_sort(b.order.begin(), b.order.end(), [&](std::int64_t x, std::int64_t y) {
    return line[static_cast<std::size_t>(x)] < line[static_cast<std::size_t>(y)];
  });
  b.starts.push_back(0);
  for (std::size_t k = 1; k < n; ++k) {
    const bool new_line = line[static_cast<std::size_t>(b.order[k])] != line[static_cast<std::size_t>(b.order[k - 1])];
    if (new_line && k - b.starts.back() >= block) b.starts.push_back(k);
  }
  b.starts.push_back(n);
  return b;
}

std::vector<std::int64_t> block_index(const LineReference& lines, std::size_t k) {
  return {lines.order.begin() + static_cast<std::ptrdiff_t>(lines.starts[k]),
          lines.order.begin() + static_cast<std::ptrdiff_t>(lines.starts[k + 1])};
}

// Every line of the tensor evaluated, block by block on every core.
LineReference evaluate_lines(const SampledReference& reference, const SampledTensor& tensor, const MathProfile* profile,
                             bool flush) {
  LineReference lines = line_blocks(reference.call, tensor.tensor, tensor.numel);
  lines.expected.resize(lines.starts.size() - 1);
  const SliceSource source = reference.source();
  for_each_block(static_cast<std::int64_t>(lines.expected.size()), 1, [&](std::int64_t k, std::int64_t, std::int64_t) {
    const auto b = static_cast<std::size_t>(k);
    lines.expected[b] = sampled_bounds(source, tensor.tensor, block_index(lines, b), profile, flush);
  });
  return lines;
}

// A reduction's gradient, line by line: each line's statistics once, its blocks on every core.
std::vector<BlockResult> streamed_gradient_blocks(const CompleteLinesInput& in) {
  const CompleteCheckInput& c = in.check;
  const OpCall& call = c.reference.call;
  const AxisSplit s = split_at_axis(call.input_shapes[0], call.attrs.axis);
  const std::int64_t per_line = (s.n + kCompleteBlockElements - 1) / kCompleteBlockElements;
  std::vector<BlockResult> blocks(static_cast<std::size_t>(s.outer * s.inner * per_line));
  const SliceSource source = c.reference.source();
  PhaseTimer timer(Phase::bounds);
  for (std::int64_t line = 0; line < s.outer * s.inner; ++line) {
    const std::int64_t o = line / s.inner, i = line % s.inner;
    ref::visit_streamed_gradient(call, line, source.inputs.at(0), source.cotangent,
                                 source.known_statistics(line, in.profile, in.flush), in.profile, in.flush,
                                 kCompleteBlockElements, [&](std::int64_t first, const ref::RefTensor& expected) {
                                   std::vector<std::int64_t> index(static_cast<std::size_t>(expected.numel()));
                                   for (std::size_t k = 0; k < index.size(); ++k)
                                     index[k] = (o * s.n + first + static_cast<std::int64_t>(k)) * s.inner + i;
                                   const HostTensor got = gather_elements(c.full, index, expected.shape);
                                   blocks[static_cast<std::size_t>(line * per_line + first / kCompleteBlockElements)] =
                                       compare_block(expected, got, c.tol, c.c.dtype, {&index, c.tensor.numel});
                                 });
  }
  return blocks;
}

// Every block of the tensor compared with the device's elements as soon as it is evaluated: the
// same blocks, values and bounds as evaluate_lines gives an elementwise tensor, none of them kept.
std::vector<BlockResult> streamed_blocks(const CompleteLinesInput& in) {
  const CompleteCheckInput& c = in.check;
  if (!ref::has_elementwise_slices(c.reference.call, c.tensor.tensor)) return streamed_gradient_blocks(in);
  const SliceSource source = c.reference.source();
  const std::int64_t numel = c.tensor.numel;
  std::vector<BlockResult> blocks(
      static_cast<std::size_t>((numel + kCompleteBlockElements - 1) / kCompleteBlockElements));
  // Most of the time is the blocks' Tracked evaluations, on threads the phase clock does not see.
  PhaseTimer timer(Phase::bounds);
  for_each_block(numel, kCompleteBlockElements, [&](std::int64_t k, std::int64_t first, std::int64_t end) {
    std::vector<std::int64_t> index(static_cast<std::size_t>(end - first));
    std::iota(index.begin(), index.end(), first);
    const ref::RefTensor expected = sampled_bounds(source, c.tensor.tensor, index, in.profile, in.flush);
    const HostTensor got = gather_elements(c.full, index, expected.shape);
    blocks[static_cast<std::size_t>(k)] = compare_block(expected, got, c.tol, c.c.dtype, {&index, numel});
  });
  return blocks;
}

}  // namespace

const LineReference& CompleteLineReferences::get(const SampledReference& reference, const SampledTensor& tensor,
                                                 const MathProfile* profile, bool flush) {
  ProfileMemo<LineReference>* memo = nullptr;
  {
    std::lock_guard lock(mutex_);
    memo = &memos_[tensor.tensor];
  }
  return memo->get(profile, flush, [&](bool* reads_profile) {
    PhaseTimer timer(Phase::bounds);
    LineReference lines = evaluate_lines(reference, tensor, profile, flush);
    // The lines are evaluated on other threads, whose reads this one does not count: taken as
    // read, so that nothing built on these values is shared between profiles or flush modes.
    *reads_profile = true;
    ref::note_profile_read();
    ref::note_flush_read();
    return lines;
  });
}

std::optional<CheckResult> complete_line_check(const CompleteLinesInput& in, std::uint64_t seed) {
  const CompleteCheckInput& c = in.check;
  const std::int64_t numel = c.tensor.numel;
  const LineCheck kind = line_check_kind(c.reference.call, c.tensor.tensor, numel, in.limits);
  if (kind == LineCheck::none) return std::nullopt;
  const bool output = c.tensor.tensor == ref::kOutputTensor;
  CheckResult r = blank_result(c.c, c.device_id, output ? Direction::forward_complete : Direction::backward_complete,
                               c.tensor.tensor, seed);
  if (kind == LineCheck::streamed) {
    judge_blocks(r, streamed_blocks(in), numel, c.tol,
                 "every element, each against its own Tracked bound, evaluated block by block as it is compared "
                 "(docs/scale.md, \"Every element\")");
    return r;
  }
  const LineReference& lines = c.reference.lines->get(c.reference, c.tensor, in.profile, in.flush);
  std::vector<BlockResult> blocks(lines.expected.size());
  {
    PhaseTimer timer(Phase::comparisons);
    for_each_block(static_cast<std::int64_t>(blocks.size()), 1, [&](std::int64_t k, std::int64_t, std::int64_t) {
      const auto b = static_cast<std::size_t>(k);
      const std::vector<std::int64_t> index = block_index(lines, b);
      const HostTensor got = gather_elements(c.full, index, lines.expected[b].shape);
      blocks[b] = compare_block(lines.expected[b], got, c.tol, c.c.dtype, {&index, numel});
    });
  }
  judge_blocks(r, blocks, numel, c.tol,
               "every element, each against its own Tracked bound from its line's evaluation (docs/scale.md, "
               "\"Every element\")");
  return r;
}

}  // namespace gp
