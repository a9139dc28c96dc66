// A perturbing decorator around a real backend. `gradparity selftest` runs the registry through
// it, one fault class at a time, and counts which faults the checks catch: the checker's own
// mutation test, so a user can see how much a green run proves.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"

namespace gp {

enum class FaultClass : std::uint8_t {
  gradient_scaled,       // every gradient times (1 + epsilon)
  sign_flipped,          // the largest-magnitude element of the first gradient negated
  element_zeroed,        // that element set to zero
  last_element_dropped,  // the last element of every gradient left as the kernel found it
  last_row_dropped,      // the last row (innermost dimension) of every gradient likewise
  gradients_crossed,     // the first gradient written into the buffer of the next one of its shape
  forward_scaled,        // the forward result times (1 + epsilon); the backward sees the exact one
  double_rounded,        // 16-bit results rounded once more, through one mantissa bit less
  // The large tier's faults (harness/audit/large_selftest.hpp), on the forward result and on every
  // gradient alike:
  element_perturbed,       // one element, at a position drawn from Fault::trial, times (1 + epsilon)
  edge_tile_wrong,         // the last 16 x 16 tile (16 of a vector) moved by the tensor's largest magnitude
  last_workgroup_dropped,  // the last kWorkgroupElements elements left as the kernel found them
  index_wrapped,           // a 32-bit index: element i past 2^31 written at i - 2^31, i left as found
};
std::string_view fault_class_name(FaultClass f);

struct Fault {
  FaultClass kind = FaultClass::gradient_scaled;
  double epsilon = 0;  // gradient_scaled, forward_scaled
  // Only calls whose OpCall::case_id is this (one node of a model); empty: every call.
  std::string target = {};
  std::uint64_t trial = 0;  // element_perturbed: which draw of the positions
  // The large tier's faults: only this tensor of a call (0 the forward result, 1 + k gradient k);
  // -1: every tensor the call writes.
  int tensor = -1;
};

// The work-group of last_workgroup_dropped: the largest one the project's kernels use.
inline constexpr std::int64_t kWorkgroupElements = 256;
// index_wrapped's period: a signed 32-bit index's range.
inline constexpr std::int64_t kIndexWrap = std::int64_t{1} << 31;

// What a large-tier fault makes of a tensor a call wrote (`after`), given what its buffer held
// before the call (`before`, read by the drop and wrap faults); `which` tells the tensors of one
// call apart (0 the forward result, 1 + k gradient k), so that each has its own perturbed
// position. Returns whether anything changed. `wrap_period` is kIndexWrap but in tests.
bool apply_large_fault(const Fault& f, HostTensor& after, const HostTensor& before, int which,
                       std::int64_t wrap_period = kIndexWrap);

// `inner` with `fault` applied to what its kernels write. Buffers are the inner backend's own,
// so the decorator and `inner` may be used side by side; `inner` must outlive the result.
std::unique_ptr<Backend> make_faulty_backend(Backend& inner, const Fault& fault);

}  // namespace gp
