// The oracle: the reference's own formulas (reference/*.cpp, generic over their real type)
// evaluated in 166-bit MPFR arithmetic instead of long double. Comparing the two measures the
// long-double reference's rounding error exactly, cancellations included, without a second
// implementation of any op. This header is free of Boost and MPFR: results come back as
// long-double pairs.
#pragma once

#include <string>
#include <vector>

#include "reference/reference.hpp"

namespace gp::ref {

// A value carried as hi + lo (hi = the MPFR value rounded to long double, lo = the rounded
// remainder): about 128 bits, enough to measure a long-double error to well below its own ulp.
struct OracleTensor {
  Shape shape;
  std::vector<long double> hi, lo;
  std::int64_t numel() const { return static_cast<std::int64_t>(hi.size()); }
  // ref - oracle, in long double: ref - hi is exact when ref is near hi (Sterbenz).
  long double error_of(std::size_t i, long double ref) const { return (ref - hi[i]) - lo[i]; }
};

struct OracleResult {
  OracleTensor output;
  std::vector<OracleTensor> grads;  // empty hi/lo for inputs without a gradient
};

// Forward and VJP of `call` at the exact values of `inputs` and `dout` (the same bytes the
// long-double reference reads), in MPFR arithmetic.
OracleResult oracle_evaluate(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& dout);

// "MPFR 166-bit" (the precision in bits is that of the instantiated type).
int oracle_bits();
std::string oracle_description();

}  // namespace gp::ref
