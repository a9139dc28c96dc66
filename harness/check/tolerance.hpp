// The tolerance model. A correct kernel's error at element i stays within
//     bound_i = (1 + r) (spec_i + k (det_i - spec_i)      library budgets; single roundings, k = kFormulation
//             + min(k acc_i, lambda * prob_i))             accumulations; r = kReferenceShare
//             + half an ULP of the storage type at |v_i|  when a 16-bit store rounds the result
//             + |v_i| below the storage type's smallest normal number, on a device that may flush
// where det, acc and prob come from the reference evaluated in Tracked arithmetic
// (reference/tracked.hpp) under the device's math profile: every library call charged the
// device's budget at its argument, one rounding per arithmetic step, the rounding of the stored
// values a kernel reads back and of an intermediate the case's definition stages in the storage
// type (OpAttrs::staged), all propagated through the op's own partial derivatives; acc and
// prob are the worst-case and the probabilistic bound of the roundings inside accumulations.
// The roundings of the reference's formulas are those of one stable formulation; a kernel's may
// differ (a reciprocal multiplied instead of a division, s (1 + x s(-x)) instead of s + x s'(x)
// for silu's slope) and commit a few more at intermediates of the same size: the single roundings
// in det (not the library budgets beyond correct rounding, nor a staged intermediate's rounding:
// spec) and the worst case of accumulations count kFormulation times. Measured before this
// allowance, the largest excess of a correct kernel over the reference formulation's count was
// 1.12x.
// The reference is long double, not exact: the oracle check verifies its error to stay within
// kReferenceShare of the tightest bound (harness/audit/oracle_check.hpp), so that much is added to
// every bound. Without it a correctly rounded result whose exact value lies near a midpoint could
// fail by the reference's own last bits.
// lambda = kLambda: Hoeffding's inequality puts the chance that independent mean-zero roundings
// exceed lambda * prob below 2 exp(-lambda^2 / 2) (3e-7 at lambda = 5.5; the rounding errors of
// real kernels are smaller than the bound Hoeffding assumes, their spread is about a third of
// prob). A case may add budget with a written reason, which every report prints.
#pragma once

#include <string>
#include <string_view>

#include "cases/case.hpp"
#include "reference/reference.hpp"

namespace gp {

inline constexpr double kLambda = 5.5;
using ref::kFormulation;  // reference/reference.hpp: either_form combines forms with it
inline constexpr double kReferenceShare = 0.01;

struct Tolerance {
  bool exact = false;  // layout ops: values are moved, any difference is a bug
  DType storage = DType::f32;
  bool rounds_to_storage = false;  // results are computed in f32 and stored in f16/bf16
  bool flushes = false;            // the device may flush subnormal results to zero
  double extra_ulps = 0;           // a case's written loosening, in ULPs of the value
  std::string loosened;            // its reason
  std::string profile;             // the device math profile's source, for the report
  // The device declares that this op's backward computes from the forward's value
  // (MathProfile::backward_reads_output): the bounds cover that form; reports name it.
  bool backward_from_output = false;

  double bound(const ref::ErrorBound& e, double value) const;
  std::string describe() const;
};

// The tolerance of a case on a device (its math profile, whether it may flush subnormals).
Tolerance tolerance_for(const Case& c, const MathProfile& profile, bool flushes_subnormals = false);

// A backward check's formulation where the device declares that form (CheckResult::formulation).
inline constexpr std::string_view kBackwardFromOutput = "computed from the forward's value (declared by the device)";

// The error bound of a correct kernel in the case dtype, combined from the channels.
double propagated_error(const ref::ErrorBound& e);

}  // namespace gp
