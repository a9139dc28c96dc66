#include "harness/check/complete_kind.hpp"

#include "reference/element_slice.hpp"

namespace gp {

LineCheck line_check_kind(const OpCall& call, int tensor, std::int64_t numel, const SampleOptions& limits) {
  if (!ref::has_element_slices(call) || op_family(call.kind) == OpFamily::linalg) return LineCheck::none;
  if (numel <= limits.complete_elements) return LineCheck::kept;
  if (ref::has_elementwise_slices(call, tensor) && numel <= limits.streamed_complete_elements)
    return LineCheck::streamed;
  return LineCheck::none;
}

}  // namespace gp
