// The calculus of every unary elementwise op as one table: f, f', f'' and the extra error that
// the contract's own formula carries (core/README.md writes some ops in a way that cancels, e.g.
// the tanh gradient g(1 - y^2) near |y| = 1). unary.cpp turns it into forward values, VJPs and
// error scales; the unit test checks f' and f'' against central differences of f and f'.
#pragma once

#include "reference/reference.hpp"

namespace gp::ref {

template <class R>
struct BasicUnaryMath {
  R (*f)(R x, const OpAttrs& a);
  R (*d1)(R x, const OpAttrs& a);  // f'(x)
  R (*d2)(R x, const OpAttrs& a);  // f''(x): the scale of the gradient needs d(f')/dx
  // Extra absolute error scale of a kernel that evaluates the contract's formula literally:
  // forward in units of 1 (added to |y| + |x f'|), backward per unit of |dy|. Zero for most ops.
  R (*fwd_stage)(R x, const OpAttrs& a);
  R (*bwd_stage)(R x, const OpAttrs& a);
};
using UnaryMath = BasicUnaryMath<Real>;

// The table entry of a unary-family op; nullptr for ops of other families. Instantiated for
// long double and the oracle's MpReal.
template <class R>
const BasicUnaryMath<R>* basic_unary_math(OpKind k);
inline const UnaryMath* unary_math(OpKind k) { return basic_unary_math<Real>(k); }

}  // namespace gp::ref
