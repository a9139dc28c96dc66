#include "core/math_profile.hpp"

namespace gp {

std::string_view math_fn_name(MathFn f) {
  static constexpr std::string_view names[kMathFnCount] = {"div", "sqrt", "rsqrt", "exp",  "expm1", "log", "log1p",
                                                           "pow", "sin",  "cos",   "tanh", "erf",   "erfc"};
  return names[static_cast<int>(f)];
}

namespace {

class CorrectlyRounded final : public MathProfile {
 public:
  std::string source() const override { return "correctly rounded (0.5 ULP) everywhere"; }
  FnBudget budget(MathFn, DType, long double, long double, long double) const override { return {0.5}; }
};

}  // namespace

const MathProfile& correctly_rounded_profile() {
  static const CorrectlyRounded p;
  return p;
}

}  // namespace gp
