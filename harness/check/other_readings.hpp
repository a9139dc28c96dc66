// Places where a correct kernel need not give the contract's value at the input as given, and
// the catalog accepts what it may legitimately compute instead, each with the bound of a correct
// kernel computing it, so that a legitimate convention is not a finding and any other value still
// is:
//  - Exactly on a kink (core/op_list.hpp's kinks column: relu's 0, hardswish's -3 and 3, ...) the
//    derivative has two one-sided values and a library's convention may take either: PyTorch's
//    hardswish gives -0.5 at x = -3 and 1.5 at x = 3 where the catalog's contract says 0 and 1.
//    The backward may take either one-sided derivative (the input moved by one long-double
//    spacing to either side).
//  - Exactly where a straight-through op's forward or surrogate steps (ste_round's ties k + 1/2,
//    which C's round takes away from zero and the contract to even; the hardtanh gate's 0, where
//    a kernel may write x >= 0, and its -1 and 1) and exactly on a B-spline knot (a kernel may
//    evaluate either adjacent span): the forward and the backward may take either one-sided value.
//  - Exactly at a tie of maximum's or minimum's inputs a kernel's comparison selects either input
//    (the contract splits the cotangent, as PyTorch does): both gradients may take the first input
//    selected at every tie or the second, judged together (a cotangent given to both fails).
//  - On a device that may flush subnormals (DeviceInfo::may_flush_subnormals), a unary op's input
//    below the compute type's smallest normal number may be read as a zero of its sign
//    (docs/error-model.md, "Range"): NVIDIA's Vulkan driver then takes relu's and abs's
//    derivatives at 0 and gives log's -inf, found by hunt. The forward and the backward may take
//    the value at that zero (and, where 0 is a kink, either one-sided derivative there).
//  - A max reduction's row whose maximum ties: a kernel may give the row's cotangent to any one
//    tied maximum (the contract gives it to the first) or split it evenly (PyTorch's amax); each
//    row is judged under one of those readings, so a cotangent given to two fails.
// Catalog cases keep away from all of them; cases files and hunt put inputs on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/check/checker.hpp"
#include "harness/check/tolerance.hpp"

namespace gp {

struct OtherReadings {
  ref::RefTensor expected;      // the contract's tensor, elements replaced where the device took another reading
  std::int64_t on_kinks = 0;    // input elements exactly on a kink, a step or a knot (above)
  std::int64_t subnormal = 0;   // elements whose subnormal input the device may read as zero
  std::int64_t ties = 0;        // maximum's and minimum's output elements whose inputs tie
  std::int64_t tied_rows = 0;   // a max reduction's rows whose maximum ties
  std::int64_t other_side = 0;  // output elements judged against a value the contract at the given input does not give
  bool forward = false;         // the forward's output (else a gradient)

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
  const std::vector<HostTensor>* grads = nullptr;  // every gradient the device gave (ties read both)
};

// The tensor that `got` is compared with: `contract` (the reference's, bounded) for the forward's
// output (`tensor` -1) or input `tensor`'s gradient, except that each element with another
// reading takes whichever of the contract's value and those readings' values `got` is nearest,
// in units of its bound. Nothing when no element has another reading, or the op has none.
std::optional<OtherReadings> judge_other_readings(const ReadingContext& at, const ref::RefTensor& contract,
                                                  const HostTensor& got, int tensor);

// Whether the catalog states the readings a kernel may take exactly on the kinks of the op's
// input 0 (every point distance_to_kinks names for it): a unary op's and bspline_basis's.
bool kinks_have_stated_readings(OpKind op);

}  // namespace gp
