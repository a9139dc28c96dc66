#include "harness/check/complete_kind.hpp"

#include "reference/element_slice.hpp"
#include "reference/reference.hpp"
#include "reference/streamed_line.hpp"

namespace gp {

bool streams_complete_check(const OpCall& call, int tensor) {
  // An elementwise tensor, or the gradient of a reduction whose lines are read one element at a
  // time (reference/reduction.cpp): no block needs more than its own elements and a line's
  // statistics.
  return ref::has_elementwise_slices(call, tensor) || (ref::has_streamed_lines(call) && tensor == 0);
}

LineCheck line_check_kind(const OpCall& call, int tensor, std::int64_t numel, const SampleOptions& limits) {
  if (!ref::has_element_slices(call) || op_family(call.kind) == OpFamily::linalg) return LineCheck::none;
  if (numel <= limits.complete_elements) return LineCheck::kept;
  if (streams_complete_check(call, tensor) && numel <= limits.streamed_complete_elements) return LineCheck::streamed;
  return LineCheck::none;
}

}  // namespace gp
