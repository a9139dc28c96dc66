// A second math profile beside correctly_rounded_profile(): four ULPs for every library function,
// so that a test sees which bounds read a profile's budgets and which do not.
#pragma once

#include <string>

#include "core/math_profile.hpp"

namespace gp::testing {

class FourUlps final : public MathProfile {
 public:
  std::string source() const override { return "four ULPs everywhere (test)"; }
  FnBudget budget(MathFn, DType, long double, long double, long double) const override { return {4, 0}; }
};
inline const FourUlps kFourUlps;

}  // namespace gp::testing
