// Two places where a correct kernel need not give the contract's value at the input as given, and
// the catalog accepts what it may legitimately compute instead, each with the bound of a correct
// kernel computing it, so that a legitimate convention is not a finding and any other value still
// is. Both concern a unary op's input:
//  - Exactly on a kink (core/op_list.hpp's kinks column: relu's 0, hardswish's -3 and 3, ...) the
//    derivative has two one-sided values and a library's convention may take either: PyTorch's
//    hardswish gives -0.5 at x = -3 and 1.5 at x = 3 where the catalog's contract says 0 and 1.
//    The backward may take either one-sided derivative (the input moved by one long-double
//    spacing to either side).
//  - On a device that may flush subnormals (DeviceInfo::may_flush_subnormals), an input below the
//    compute type's smallest normal number may be read as a zero of its sign (docs/error-model.md,
//    "Range"): NVIDIA's Vulkan driver then takes relu's and abs's derivatives at 0 and gives log's
//    -inf, found by hunt. The forward and the backward may take the value at that zero (and, where
//    0 is a kink, either one-sided derivative there).
// Catalog cases keep away from both; cases files and hunt put inputs on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/check/checker.hpp"
#include "harness/check/tolerance.hpp"

namespace gp {

struct OtherReadings {
  ref::RefTensor expected;      // the contract's tensor, elements replaced where the device took another reading
  std::int64_t on_kinks = 0;    // elements whose input sits exactly on a kink (backward only)
  std::int64_t subnormal = 0;   // elements whose subnormal input the device may read as zero
  std::int64_t other_side = 0;  // of them, judged against a value the contract at the given input does not give

  // For the check's reason: what was judged otherwise and how often the device took it.
  std::string describe() const;
};

// What the judgement reads of a check: the case, its reference data, the device's tolerance, math
// profile and whether it may flush subnormals.
struct ReadingContext {
  const Case& c;
  const ReferenceData& data;
  const Tolerance& tol;
  const MathProfile* math;
  bool flush;
};

// The tensor that `got` is compared with: `contract` (the reference's, bounded) for the forward's
// output (`tensor` -1) or input `tensor`'s gradient, except that each element with another
// reading takes whichever of the contract's value and those readings' values `got` is nearest,
// in units of its bound. Nothing when no element has another reading, or the op is not unary.
std::optional<OtherReadings> judge_other_readings(const ReadingContext& at, const ref::RefTensor& contract,
                                                  const HostTensor& got, int tensor);

}  // namespace gp
