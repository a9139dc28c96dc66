// What an op along rows must give at IEEE 754's special values (cases/special_values.hpp,
// kSpecialRows; docs/special-values.md), forward and backward with cotangent 1:
//   sum, mean, max: the sum of these values is the same in any order, max's NaN may be passed
//     over, and its gradient at a tie or beside a NaN takes any of 0, 1/k and the whole cotangent;
//   logsumexp, softmax, log_softmax, variance: a row with a NaN gives NaN everywhere; a row with an
//     infinity, the op's formula read with IEEE 754 semantics on the row as it is (logsumexp's
//     log(sum of e^x) = +inf beside a +inf), and where that formula meets an indeterminate form
//     (softmax's inf / inf, log_softmax's inf - inf, variance's inf - inf) NaN and the limit as the
//     infinities grow; a finite value the row's finite entries decide (softmax of the finite entries
//     beside a -inf) is the error model's to judge (`finite`), an exact 0, 1 or infinity is required.
#pragma once

#include "cases/case.hpp"
#include "harness/check/special_values.hpp"

namespace gp {

bool is_row_case(const Case& c);
SpecialExpectations row_expectations(const Case& c);

}  // namespace gp
