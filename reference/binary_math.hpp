// The contract's formulas of a binary elementwise op at one pair of operands, in long double: the
// value, both partial derivatives, and the partials written with the output z as the kernels that
// read it take them (pow: b z / a and z log a; div: -z / b). binary.cpp's table is their source;
// the IEEE special-value sets (harness/check/special_pointwise.cpp) read every form there.
#pragma once

#include "reference/reference.hpp"

namespace gp::ref {

struct BinaryPartials {
  Real f, fa, fb, fa_of_z, fb_of_z;
};

// Throws gp::Error for an op outside the binary family.
BinaryPartials binary_partials(OpKind op, Real a, Real b);

}  // namespace gp::ref
