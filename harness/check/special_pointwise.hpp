// What pow, bspline_basis, mse_loss and bce_with_logits must give at IEEE 754's special values
// (cases/special_values.hpp; docs/special-values.md), forward and backward with cotangent 1: each
// element the contract's value there in long double with IEEE 754 and C Annex F semantics
// (pow(NaN, 0) = 1, pow(-2, inf) = inf), where
//   - an operand the element reads is NaN: NaN too (a kernel's exp(b log a) gives it for pow(NaN, 0));
//   - pow's gradients: every formulation the reference states (b a^(b-1) or b z / a; z log a), and
//     0 where the exponent is 0 (the derivative of the constant a^0) or the base 0 and the exponent
//     at least 0 (the limit of a^b log a; PyTorch's masks); at a zero base either infinity where
//     the base's gradient is infinite (which one is the formulation's reading of -0);
//   - a finite nonzero value is the error model's to judge (`finite`): its checks at ordinary
//     inputs cover it, and formulations round it differently; a zero is required (either sign), an
//     infinity as itself.
// bspline_basis outside its grid (an infinity, and NaN, where no comparison holds) gives a row of
// zeros; a loss's value, the mean or sum of every pair, is NaN (a NaN pair is among them).
#pragma once

#include "cases/case.hpp"
#include "harness/check/special_values.hpp"

namespace gp {

bool is_pointwise_case(const Case& c);
SpecialExpectations pointwise_expectations(const Case& c);

}  // namespace gp
