// Element-by-element comparison of a backend tensor with the reference, against per-element
// bounds; produces the metrics every report shows and a verdict with its reason.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "harness/check/tolerance.hpp"
#include "reference/reference.hpp"
#include "results/result.hpp"

namespace gp {

struct Comparison {
  Metrics metrics;
  Verdict verdict = Verdict::pass;
  std::string reason;
};

// Where the compared elements sit in the whole tensor when they are a sample of it (the large
// tier, harness/large/): element i of `got` is element index[i] of a tensor of `numel`.
struct SamplePositions {
  const std::vector<std::int64_t>* index = nullptr;  // null: `got` is the whole tensor
  std::int64_t numel = 0;
};

// `expected` carries the error bounds of a correct kernel (`err`, from ReferenceData::bounded;
// empty: every bound is the tolerance's own terms). `inputs_at` (optional) gives the input values
// that produced element i (of the whole tensor), for the worst-element report of elementwise ops.
// Indices in the metrics and the reason are the whole tensor's.
Comparison compare_to_reference(const ref::RefTensor& expected, const HostTensor& got, const Tolerance& tol,
                                DType dtype, const std::function<std::vector<double>(std::int64_t)>& inputs_at = {},
                                const SamplePositions& positions = {});

// The `count` elements of `got` farthest beyond their bounds (error over the reference's bound,
// `expected.err`; the absolute error where it has none), farthest first, for a table of the
// worst elements. `check_worst` (the element the check judged by, -1 for none) is always among
// them: ordered by absolute error, the failing element of a small result could be left out.
std::vector<std::int64_t> worst_elements(const ref::RefTensor& expected, const HostTensor& got, int count,
                                         std::int64_t check_worst);

// A check proves nothing when the reference it compares with is (almost) all zeros.
// Returns the reason, or empty when the comparison is meaningful. `sparse_ok` marks tensors that
// are sparse by construction (the gradient of max, of slice).
std::string mistrust_reason(const ref::RefTensor& expected, bool sparse_ok);

}  // namespace gp
