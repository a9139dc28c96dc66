// What the OpenCL C specification allows a device's built-ins (OpenCL C 1.2 / 3.0, "Relative
// error as ULPs", full profile): single precision for f32 and the 16-bit storage types (computed
// in f32), double precision for f64. Division and sqrt are correctly rounded in double; in float
// only with -cl-fp32-correctly-rounded-divide-sqrt, which the backend does not pass.
#include "backends/opencl/detail.hpp"

namespace gp::opencl {

namespace {

class OpenClSpecProfile final : public MathProfile {
 public:
  std::string source() const override { return "OpenCL C specification ULP tables"; }
  FnBudget budget(MathFn fn, DType compute, long double, long double, long double) const override {
    const bool f64 = compute == DType::f64;
    switch (fn) {
      case MathFn::div:
        return {f64 ? 0.5 : 2.5};
      case MathFn::sqrt:
        return {f64 ? 0.5 : 3.0};
      case MathFn::rsqrt:
        return {2};
      case MathFn::exp:
      case MathFn::expm1:
      case MathFn::log:
        return {3};
      case MathFn::log1p:
        return {2};
      case MathFn::pow:
      case MathFn::erf:
      case MathFn::erfc:
        return {16};
      case MathFn::sin:
      case MathFn::cos:
        return {4};
      case MathFn::tanh:
        return {5};
    }
    return {};
  }
};

}  // namespace

const MathProfile& opencl_math_profile() {
  static const OpenClSpecProfile p;
  return p;
}

}  // namespace gp::opencl
