// What matmul and linear must give at IEEE 754's special values (cases/special_values.hpp,
// special_products; docs/special-values.md): every output and gradient element is a sum of
// products, read with IEEE 754 semantics whatever the order: NaN where a term is NaN (a NaN
// operand, or an infinity times a zero: a kernel that skips a zero operand's products fails) or
// where terms of both infinities meet, the infinity where terms of one sign are infinite, else the
// exact sum (the finite terms are small integers); a zero of either sign, as a sum's accumulator
// may start from either.
#pragma once

#include "cases/case.hpp"
#include "harness/check/special_values.hpp"

namespace gp {

bool is_product_case(const Case& c);
SpecialExpectations product_expectations(const Case& c);

}  // namespace gp
