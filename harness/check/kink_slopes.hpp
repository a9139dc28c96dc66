// Exactly at a kink of a unary op (core/op_list.hpp's kinks column: relu's 0, hardswish's -3 and
// 3, ...) the derivative has two one-sided values, and a library's convention may take either:
// PyTorch's hardswish gives -0.5 at x = -3 and 1.5 at x = 3 where the catalog's contract says 0
// and 1. The catalog accepts both one-sided values there (each with the bound of a correct
// kernel computing it), so a legitimate convention is not a finding and any other value still is.
// Catalog cases keep away from kinks; cases files and hunt put inputs on them.
#pragma once

#include <cstdint>
#include <optional>

#include "harness/check/checker.hpp"
#include "harness/check/tolerance.hpp"

namespace gp {

struct KinkJudgement {
  ref::RefTensor expected;      // the contract's gradient, kink elements replaced where the device took the other side
  std::int64_t on_kinks = 0;    // elements whose input sits exactly on a kink
  std::int64_t other_side = 0;  // of them, judged against the one-sided value the contract does not use
};

// What the judgement reads of a check: the case, its reference data, the device's tolerance, math
// profile and whether it may flush subnormals.
struct KinkContext {
  const Case& c;
  const ReferenceData& data;
  const Tolerance& tol;
  const MathProfile* math;
  bool flush;
};

// The gradient of input `k` that `got` is compared with: `contract` (the reference's, bounded),
// except that each element whose input sits exactly on a kink takes whichever of the contract's
// value and the two one-sided derivatives' (the reference evaluated with that input moved by one
// long-double spacing to either side) `got` is nearest, in units of its bound. Nothing when no
// element sits on a kink, or the op has none.
std::optional<KinkJudgement> judge_at_kinks(const KinkContext& at, const ref::RefTensor& contract,
                                            const HostTensor& got, int k);

}  // namespace gp
