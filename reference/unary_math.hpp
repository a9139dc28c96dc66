// The calculus of every unary elementwise op as one table: f, f', f'' and the extra error that
// the contract's own formula carries (core/README.md writes some ops in a way that cancels, e.g.
// the tanh gradient g(1 - y^2) near |y| = 1). unary.cpp turns it into forward values, VJPs and
// error scales; the unit test checks f' and f'' against central differences of f and f'.
#pragma once

#include "reference/reference.hpp"

namespace gp::ref {

struct UnaryMath {
  Real (*f)(Real x, const OpAttrs& a);
  Real (*d1)(Real x, const OpAttrs& a);  // f'(x)
  Real (*d2)(Real x, const OpAttrs& a);  // f''(x): the scale of the gradient needs d(f')/dx
  // Extra absolute error scale of a kernel that evaluates the contract's formula literally:
  // forward in units of 1 (added to |y| + |x f'|), backward per unit of |dy|. Zero for most ops.
  Real (*fwd_stage)(Real x, const OpAttrs& a);
  Real (*bwd_stage)(Real x, const OpAttrs& a);
};

// The table entry of a unary-family op; nullptr for ops of other families.
const UnaryMath* unary_math(OpKind k);

}  // namespace gp::ref
