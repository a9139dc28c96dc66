// Which complete check a large case's tensor gets besides its sampled one (docs/scale.md, "Every
// element"): decided here, where the memory estimate (memory_fit.hpp) and the checks
// (harness/large/complete_lines.hpp) both read it.
#pragma once

#include <cstdint>

#include "core/op.hpp"
#include "harness/check/context.hpp"

namespace gp {

enum class LineCheck : std::uint8_t {
  none,      // a matrix product (its own complete check), or a tensor past the limits
  kept,      // at most complete_elements: the references kept for the case's devices
  streamed,  // up to streamed_complete_elements, an elementwise tensor or a sum's, mean's, max's or
             // variance's gradient: blocks evaluated per device
};

// Whether a tensor of the call can be checked whole without keeping its references: `tensor`,
// ref::kOutputTensor or an input's gradient.
bool streams_complete_check(const OpCall& call, int tensor);
LineCheck line_check_kind(const OpCall& call, int tensor, std::int64_t numel, const SampleOptions& limits);

}  // namespace gp
