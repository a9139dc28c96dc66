// The large tier's complete check of the ops whose elements come from lines or from themselves
// (docs/scale.md, "Every element"): the reductions, softmax, log_softmax, logsumexp, layer_norm,
// rms_norm, the losses, and the elementwise ops. Beside the sampled check, every line of the
// tensor is evaluated as the sample evaluates its lines (ref::element_slice: each element's value
// and Tracked bound bit for bit the whole evaluation's, under the device's profile) and every
// element compared with its own bound, in blocks of whole lines on every core. An elementwise
// tensor too large to keep its references (above --complete-elements) is streamed: each block
// evaluated and compared at once, on each device again. The matrix
// products have theirs (complete_check.hpp), whose lines, dot products, would cost a GEMM in
// Tracked arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "harness/check/complete_kind.hpp"
#include "harness/check/context.hpp"
#include "harness/check/profile_memo.hpp"
#include "harness/large/complete_check.hpp"
#include "reference/reference.hpp"

namespace gp {

// Every element of one tensor's reference under one device profile: the elements in the order
// of their lines, blocks of whole lines (block k: order[starts[k]] up to order[starts[k + 1]]),
// and each block's values and bounds. 80 bytes an element (10^7 elements: 800 MB).
struct LineReference {
  std::vector<std::int64_t> order;
  std::vector<std::size_t> starts;
  std::vector<ref::RefTensor> expected;
};

// The line references of one case's tensors per device profile, each computed by the first check
// that asks and kept for the case's other devices and checks (a selftest runs each many times).
// Thread-safe.
class CompleteLineReferences {
 public:
  const LineReference& get(const SampledReference& reference, const SampledTensor& tensor, const MathProfile* profile,
                           bool flush);

 private:
  std::mutex mutex_;
  std::map<int, ProfileMemo<LineReference>> memos_;  // by SampledTensor::tensor; a map's elements stay put
};

struct CompleteLinesInput {
  CompleteCheckInput check;
  const MathProfile* profile = nullptr;
  bool flush = false;
  SampleOptions limits;  // complete_elements, streamed_complete_elements
};

// The complete check of one tensor (direction forward_complete or backward_complete), or nullopt
// where line_check_kind (harness/check/complete_kind.hpp) is none (the sampled check's tolerance
// then says so).
std::optional<CheckResult> complete_line_check(const CompleteLinesInput& in, std::uint64_t seed);

}  // namespace gp
