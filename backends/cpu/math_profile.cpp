// The CPU backend's math: glibc's libm on x86-64 (Debian 12, glibc 2.36), float functions for
// f32 and the 16-bit storage types, double functions for f64. Division and square roots are IEEE
// operations, correctly rounded. The other budgets start from glibc's documented "known maximum
// errors" (manual, "Errors in Math Functions") and are raised where a measurement against MPFR
// found more, to at least 1.25x the measured worst case (10^6 random arguments per function over
// the catalog's domains; tests/tools/glibc_ulps.cpp):
//   measured worst, float / double: exp 0.50 / 0.51, expm1 0.81 / 0.76, log 0.76 / 0.51,
//   log1p 1.29 / 0.78, pow 0.50 / 0.51, sin and cos 0.56 / 0.52, tanh 2.07 / 2.06,
//   erf 0.84 / 1.07, erfc 2.71 / 3.67 ULP.
#include "backends/cpu/cpu_backend.hpp"

namespace gp::cpu {

namespace {

class GlibcProfile final : public MathProfile {
 public:
  std::string source() const override { return "glibc 2.36 libm, documented and measured maximum errors"; }
  FnBudget budget(MathFn fn, DType compute, long double, long double, long double) const override {
    const bool f64 = compute == DType::f64;
    switch (fn) {
      case MathFn::div:
      case MathFn::sqrt:
        return {0.5};
      case MathFn::rsqrt:  // 1 / sqrt(x): two correctly rounded operations
        return {1.5};
      case MathFn::log1p:  // documented 1; float measured 1.29
        return {f64 ? 1.0 : 2.0};
      case MathFn::tanh:  // documented 2; measured 2.07
        return {3};
      case MathFn::erf:  // documented 1; double measured 1.07
        return {f64 ? 2.0 : 1.0};
      case MathFn::erfc:  // documented 5 (double); float measured 2.71
        return {f64 ? 5.0 : 4.0};
      default:  // exp, expm1, log, pow, sin, cos
        return {1};
    }
  }
};

}  // namespace

const MathProfile& glibc_math_profile() {
  static const GlibcProfile p;
  return p;
}

}  // namespace gp::cpu
