// What an op along rows (the reductions, softmax, log_softmax, gumbel_softmax at noise 0, layer_norm
// and rms_norm at weights 1 and bias 0) must give at IEEE 754's special values (cases/special_values.hpp,
// kSpecialRows; docs/special-values.md), forward and backward with cotangent 1:
//   sum, mean, max: the sum of these values is the same in any order, max's NaN may be passed
//     over, and its gradient at a tie or beside a NaN takes any of 0, 1/k and the whole cotangent;
//   the others: a row with a NaN gives NaN everywhere; beside an infinity, where the contract's
//     max-subtracted formulas (variance's two passes, the norms' mean and deviations) meet
//     inf - inf, NaN and the limit as the infinities grow (logsumexp +inf, softmax 1/k at k equal
//     +inf); what a -inf entry gives exactly (softmax 0, log_softmax -inf) and rms_norm's x / inf = 0
//     are required; a finite value the row's finite entries decide, or a limit reached through exp,
//     log or a root, is the error model's to judge (`finite`).
#pragma once

#include "cases/case.hpp"
#include "harness/check/special_values.hpp"

namespace gp {

bool is_row_case(const Case& c);
SpecialExpectations row_expectations(const Case& c);

}  // namespace gp
