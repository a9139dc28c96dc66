// The calculus of every unary elementwise op as one table: f, f', and f' written in terms of the
// forward output y for the ops whose backward may read y instead of recomputing it (tanh's
// 1 - y^2, sigmoid's y (1 - y), exp's y, sqrt's 1 / (2y)). unary.cpp turns it into forward values
// and VJPs; instantiated with Tracked, the y form makes the bound follow a kernel that reads its
// rounded (possibly 16-bit) y. The unit test checks f' against central differences of f and the
// y form against f'.
#pragma once

#include "reference/reference.hpp"

namespace gp::ref {

template <class R>
struct BasicUnaryMath {
  R (*f)(R x, const OpAttrs& a);
  R (*d1)(R x, const OpAttrs& a);            // f'(x)
  R (*d1_of_y)(R x, R y, const OpAttrs& a);  // f'(x) from x and y = f(x); f'(x) where no such form is used
};
using UnaryMath = BasicUnaryMath<Real>;

// The table entry of a unary-family op; nullptr for ops of other families. Instantiated for
// long double, the oracle's MpReal and Tracked.
template <class R>
const BasicUnaryMath<R>* basic_unary_math(OpKind k);
inline const UnaryMath* unary_math(OpKind k) { return basic_unary_math<Real>(k); }

}  // namespace gp::ref
