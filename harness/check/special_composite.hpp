// What cross_entropy, log_matmul_exp, the GRU cell, tt_embedding and the optimizer steps must give
// at IEEE 754's special values (cases/special_values.hpp, special_composite; docs/special-values.md),
// forward and, where the op has one, backward with cotangent 1. Each element: the contract's value there in long
// double, read with IEEE 754 semantics, where
//   - the element reads an infinite operand: NaN too (a formulation may meet inf - inf, as a
//     row's maximum subtracted, inf * 0 or inf / inf where the contract's does not);
//   - the contract meets an indeterminate form (NaN from inf - inf, inf * 0 or inf / inf while no
//     operand it reads is NaN, and also when one is), NaN and, where one exists, the limit: the
//     contract with every infinite operand replaced by a huge one of its sign, at three ratios of
//     the positive to the negative ones (1, 2^100, 2^-100), when all three round alike in the
//     dtype (softmax's 1/k at k equal +inf entries; none for a term +inf + -inf);
//   - a finite nonzero value is the error model's to judge (`finite`), a zero is required (either
//     sign), an infinity as itself.
// So NaN must propagate where the contract's own arithmetic propagates it and may appear only
// where the element reads an infinity, an infinity stays an infinity, and a kernel may reach a
// limit the contract's formulation misses.
#pragma once

#include "cases/case.hpp"
#include "harness/check/special_values.hpp"

namespace gp {

bool is_composite_case(const Case& c);
SpecialExpectations composite_expectations(const Case& c);

}  // namespace gp
