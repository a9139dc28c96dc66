// Calls at IEEE 754's special values (docs/special-values.md): per unary op, each attribute set its
// catalog cases use and each of its dtypes, one case whose input is NaN, +inf, -inf, +0 and -0 and
// whose cotangent is 1, with the id `exp(specials,shape=5,dtype=f32)`. What a device must give
// there is not a bound but a set of exact values (harness/check/special_values.hpp).
#pragma once

#include <array>
#include <vector>

#include "cases/case.hpp"

namespace gp {

// The inputs, in this order; subnormal inputs are judged by the error model instead (a device
// that may flush reads them as zeros: docs/error-model.md, "On a kink").
inline constexpr std::array<double, 5> kSpecialInputs = {__builtin_nan(""), __builtin_inf(), -__builtin_inf(), 0.0,
                                                         -0.0};
// The names of kSpecialInputs' elements, for reports and the table.
inline constexpr std::array<const char*, 5> kSpecialInputNames = {"NaN", "+inf", "-inf", "+0", "-0"};

// The table, in catalog order. Built once.
const std::vector<Case>& special_value_cases();

}  // namespace gp
