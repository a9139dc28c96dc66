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
};
std::string_view fault_class_name(FaultClass f);

struct Fault {
  FaultClass kind = FaultClass::gradient_scaled;
  double epsilon = 0;  // gradient_scaled, forward_scaled
  // Only calls whose OpCall::case_id is this (one node of a model); empty: every call.
  std::string target = {};
};

// `inner` with `fault` applied to what its kernels write. Buffers are the inner backend's own,
// so the decorator and `inner` may be used side by side; `inner` must outlive the result.
std::unique_ptr<Backend> make_faulty_backend(Backend& inner, const Fault& fault);

}  // namespace gp
