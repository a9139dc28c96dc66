// What rides along every check: the run's seed and numerical options, and the device a check
// runs on. Passed as two objects instead of five loose parameters.
#pragma once

#include <cstdint>
#include <string>

#include "backends/backend.hpp"

namespace gp {

class ReferenceCache;  // harness/check/reference_cache.hpp

struct NumericalOptions {
  int reference_probes = 2;                // random directional probes per input on the reference
  std::int64_t jacobian_max_inputs = 8;    // full Jacobian when an input has at most this many
  std::int64_t jacobian_max_outputs = 64;  // ... and the output at most this many elements
  int backend_probes = 1;                  // directional probes per input on the backend's own forward
};

// The elements one block of a complete check holds at most (harness/large/complete_check.hpp:
// one host GEMM's rows; complete_lines.hpp: whole lines, or a streamed block); the blocks run on
// every core.
inline constexpr std::int64_t kCompleteBlockElements = std::int64_t{1} << 18;

// What every check of one run shares.
// How many elements of a large-tier tensor are compared exactly (harness/large/sample.hpp).
struct SampleOptions {
  std::int64_t random = 1024;  // random elements per tensor, besides the boundaries (--sample-elements)
  // The largest tensor whose every line the reference evaluates for its complete check
  // (harness/large/complete_lines.hpp; --complete-elements); 0: none.
  std::int64_t complete_elements = std::int64_t{1} << 24;
  // The largest elementwise tensor or reduction gradient (harness/check/complete_kind.hpp) above
  // that whose every element is still compared, its blocks evaluated and compared at once on each
  // device, nothing kept (--streamed-complete-elements); 0: none. 2^28 holds the tier's
  // 10^8-element tensors and its reductions over 2^27, not its 2^31-element ones.
  std::int64_t streamed_complete_elements = std::int64_t{1} << 28;
};

struct RunContext {
  std::uint64_t seed = 1;
  NumericalOptions numerical = {};
  ReferenceCache* reference_cache = nullptr;  // null: every bound is computed
  SampleOptions sample = {};
};

// One device as a check sees it: its id in the report, the device and one queue of this thread.
struct DeviceContext {
  std::string id;
  Backend* backend = nullptr;
  Queue* queue = nullptr;
};

}  // namespace gp
