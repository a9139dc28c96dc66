// A reduction's lines read from the full input in place (reference/reduction.cpp): the large
// tier's lines of 2^27 elements, whose Tracked copies would take 10 GiB each, cost a pass over the
// input. The values and bounds are bounded_tensor's, bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/math_profile.hpp"
#include "core/op.hpp"
#include "core/tensor.hpp"
#include "reference/reference.hpp"
#include "reference/tracked.hpp"

namespace gp::ref {

// sum, mean, max and variance over one axis.
bool has_streamed_lines(const OpCall& call);
// What a line's output and gradient read of the whole line (the fields its op needs): a pass
// over 2^27 elements in Tracked arithmetic takes about 20 s of one core, and a large case reads a
// line for its sample's output and gradient and for its complete checks.
struct StreamedLineStatistics {
  Tracked sum;                     // sum, mean, variance
  std::int64_t first_maximum = 0;  // max: where its gradient goes
  Tracked centered_squares;        // variance: sum of (x - mean)^2
};
// Line `line`'s statistics, computed as the two functions below compute them.
StreamedLineStatistics streamed_line_statistics(const OpCall& call, std::int64_t line, const HostTensor& input,
                                                const MathProfile* profile, bool flush = false);
// bounded_tensor's values and bounds, bit for bit, at `elements` (SliceKey::element,
// reference/element_slice.hpp) of line `line` (SliceKey::line) of `tensor`, read from the call's
// full input and cotangent; `known`: the line's statistics under this profile and flush mode
// (null: computed here).
RefTensor bounded_streamed_line(const OpCall& call, int tensor, std::int64_t line,
                                const std::vector<std::int64_t>& elements, const HostTensor& input,
                                const HostTensor& cotangent, const StreamedLineStatistics* known,
                                const MathProfile* profile, bool flush = false);
// Every element of the input's gradient along line `line`, the same values and bounds: the line's
// statistics (`known`, or computed here), then visit(first, block) for its elements first,
// first + 1, ... (line positions), in blocks of `block` on every core (visit runs on those
// threads).
void visit_streamed_gradient(const OpCall& call, std::int64_t line, const HostTensor& input,
                             const HostTensor& cotangent, const StreamedLineStatistics* known,
                             const MathProfile* profile, bool flush, std::int64_t block,
                             const std::function<void(std::int64_t, const RefTensor&)>& visit);

}  // namespace gp::ref
