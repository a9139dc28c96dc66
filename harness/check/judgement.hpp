// The verdict of a check from its comparison with the reference, shared by the small tier's checks
// (backend_checks.cpp) and the large tier's (harness/large/sampled_checks.cpp).
#pragma once

#include <exception>
#include <string>

#include "backends/backend.hpp"
#include "cases/case.hpp"
#include "core/tensor.hpp"
#include "harness/check/compare.hpp"

namespace gp {

// The comparison's metrics, verdict and reason into `r`; a PASS against a reference that is
// (almost) all zeros becomes MISTRUSTED (mistrust_reason), except where the op's gradient is
// sparse by construction, and in a call with an empty input, whose empty tensors and zeros (sums
// over no element) are what the catalog says it gives (core/README.md, "Empty tensors").
void apply_comparison(CheckResult& r, const Comparison& cmp, const ref::RefTensor& expected, const OpCall& call);

// A finite-difference check of a call with an empty input adds nothing: its results are empty
// tensors and sums over no element, which the comparison checks exactly (and no step changes).
// Then `r` becomes a SKIP covered by the comparison, and the function returns true.
bool skip_numerics_of_empty_call(CheckResult& r, const OpCall& call);

// A second backward into the same gradient buffers, not poisoned again, must give the same
// bits: a kernel that accumulates into its gradient across calls, or keeps state between them,
// does not. FAILs `r` naming the first differing element otherwise.
void require_repeatable(CheckResult& r, const HostTensor& first, const HostTensor& again);

// What the backend reported of the calls just made (a write outside a buffer, a validation
// layer's message) FAILs `first`, the first check of the case on that device.
void fail_on_device_reports(Backend& backend, CheckResult& first);

// The one result of a case whose device calls threw: ERROR with the exception's text.
CheckResult device_error_result(const Case& c, const std::string& device_id, std::uint64_t seed,
                                const std::exception& e);

}  // namespace gp
