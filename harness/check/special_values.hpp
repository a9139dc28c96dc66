// What a unary op must give at IEEE 754's special values (cases/special_values.hpp): not a bound
// but a set of exact values per element, forward and backward, from the op's contract
// (reference/unary_math.hpp) read with IEEE 754 and C Annex F semantics (docs/special-values.md):
//   NaN:    NaN, what the contract's formula gives there, or for an op defined piecewise the value
//           of any of its constant pieces (a comparison with NaN is false, whichever a kernel
//           writes: relu's derivative 0 or g);
//   +-inf:  the formula at the infinity (exp(-inf) = +0, sin(inf) = NaN), and where that is NaN
//           from an indeterminate form (silu's -inf * 0) its limit: the formula at two huge
//           arguments, when they agree in the dtype (NaN where they do not: no limit);
//   +-0:    the formula at that zero; the sign of a zero result counts only for the ops IEEE 754
//           or C Annex F define (sin(-0) = -0, sqrt(-0) = -0, 1 / -0 = -inf), and a backward
//           takes either zero's value (a formulation need not keep the sign of a zero), either
//           one-sided derivative where 0 is a kink; at a pole either infinity; a forward value
//           the dtype rounds (softplus(0) = ln 2) is left to the error model.
// Elsewhere a finite value the dtype cannot hold exactly admits both neighbours (one elementary
// rounding: alpha g); an infinity only itself.
// A binary op's sets are the contract's values at the pair (IEEE 754 arithmetic for add, sub, mul
// and div, whose zeros' signs count), NaN besides where an operand is NaN; maximum's and minimum's
// gradients there and at a tie (+0 and -0, two equal infinities) take any of 0, g/2 and g: which
// input a kernel's comparison selects, or the catalog's split. A layout op's are the values it
// moves, exactly: a kernel that moves them through arithmetic (x + 0 turns -0 into +0) fails.
// The ops along rows' sets are special_rows.hpp's, matmul's and linear's special_products.hpp's.
#pragma once

#include <string>
#include <vector>

#include "cases/case.hpp"

namespace gp {

struct SpecialSet {
  std::vector<double> values;  // in the dtype; a NaN stands for every NaN
  bool any_zero_sign = false;  // a zero of either sign is as good as a listed zero
  bool any_finite = false;     // a function value the dtype rounds: the error model's to judge
  bool accepts(double got) const;
  std::string describe() const;  // "{+0, NaN}"
  // v in the dtype: itself where the dtype holds it, else both neighbours (one rounding); a NaN or
  // an infinity as it is.
  void add(DType t, long double v);
  // v where the dtype holds it as a zero or an infinity (NaN as NaN); a finite nonzero value in
  // the dtype is the error model's (any_finite): its checks at ordinary inputs cover it.
  void add_exact_or_finite(DType t, long double v);
};

struct SpecialExpectations {
  std::vector<SpecialSet> forward;                 // per element
  std::vector<std::vector<SpecialSet>> gradients;  // per differentiable input, per element (cotangent 1)
};

// The sets of a special-values case (cases/special_values.hpp).
SpecialExpectations special_expectations(const Case& c);

}  // namespace gp
