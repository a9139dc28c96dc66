// The math of a user's shaders (vulkan-spirv): what the Vulkan specification allows a conformant
// device's GLSL.std.450 built-ins (appendix "Precision and Operation of SPIR-V Instructions"),
// and nothing for a function the instruction set lacks. The built-in backend's profile
// (math_profile.cpp) is its own shaders' code, which a user's shader is not.
//   * f32 built-ins: their table entries; "inherited" ones through their defining formula with
//     the budgets of the built-ins in it (derivations beside each figure).
//   * Functions without an instruction (expm1, log1p, erf, erfc) and the f64 transcendentals
//     (GLSL has exp, log, pow, sin, cos, tanh for 16- and 32-bit floats only): a shader computes
//     them itself, and what its code achieves is not the specification's to promise. As for a
//     plugin that declares no profile, no allowance: correctly rounded (docs/kernel-files.md).
//   * sin and cos beyond [-pi, pi], where the specification gives no bound: the allowance of an
//     f32 reduction by 2 pi before the in-range evaluation, 2^-11 + u |x|, an assumption the
//     document names.
#include <cmath>

#include "vulkan_backend.hpp"

namespace gp::vk {

namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr FnBudget kNoClaim{0.5};

// exp and exp2: 3 + 2 |x| ULP.
double exp_ulps(long double x) { return 3.0 + 2.0 * static_cast<double>(std::fabs(x)); }

// log and log2 (an absolute error): 2^-21 on [0.5, 2], 3 ULP of the result elsewhere.
double log_error(long double v, long double result) {
  if (v >= 0.5L && v <= 2) return 0x1p-21;
  return 3 * ulp_at(DType::f32, result);
}

class VulkanSpecProfile final : public MathProfile {
 public:
  std::string source() const override {
    return "Vulkan SPIR-V precision table for GLSL.std.450 built-ins; none for functions it lacks";
  }

  FnBudget budget(MathFn fn, DType c, long double x, long double y, long double x2) const override {
    if (auto b = vulkan_arithmetic_budget(fn)) return *b;
    const bool f64 = c == DType::f64;
    switch (fn) {
      case MathFn::exp:
        return f64 ? kNoClaim : FnBudget{exp_ulps(x)};
      case MathFn::log:
        return f64 ? kNoClaim : FnBudget{0, log_error(x, std::log(x))};
      case MathFn::pow: {
        if (f64) return kNoClaim;
        // Inherited from exp2(y log2 x): log2's absolute error times |y|, and the rounding of
        // the product t, are an absolute error d of t, a relative error d ln 2 of 2^t; then
        // exp2's own 3 + 2|t| ULP.
        const long double t = x2 * std::log2(x);
        const double d = static_cast<double>(std::fabs(x2)) * log_error(x, std::log2(x)) + ulp_at(c, t) / 2;
        return {exp_ulps(t), static_cast<double>(std::fabs(y)) * d * kLn2};
      }
      case MathFn::sin:
      case MathFn::cos:
        if (f64) return kNoClaim;
        return {0,
                0x1p-11 + (std::fabs(x) > 3.14159265358979323846L ? static_cast<double>(std::fabs(x)) * 0x1p-24 : 0)};
      case MathFn::tanh: {
        if (f64) return kNoClaim;
        // Inherited from sinh(x) / cosh(x), i.e. (e^x - e^-x) / (e^x + e^-x): each exponential
        // errs by exp's budget, the difference N and the sum D round once, then a 2.5 ULP
        // division; d(N/D) = dN / D - (N / D) dD / D.
        const long double a = std::fabs(x);
        const long double ep = std::exp(a), em = std::exp(-a);
        const double e_err = exp_ulps(a) * ulp_at(c, ep) + exp_ulps(a) * ulp_at(c, em);
        const double dn = e_err + ulp_at(c, ep - em) / 2, dd = e_err + ulp_at(c, ep + em) / 2;
        const double th = static_cast<double>(std::tanh(a)), den = static_cast<double>(ep + em);
        return {2.5, (dn + th * dd) / den};
      }
      case MathFn::div:
      case MathFn::sqrt:
      case MathFn::rsqrt:
        break;  // vulkan_arithmetic_budget
      case MathFn::expm1:
      case MathFn::log1p:
      case MathFn::erf:
      case MathFn::erfc:
        return kNoClaim;
    }
    return kNoClaim;
  }
};

}  // namespace

std::optional<FnBudget> vulkan_arithmetic_budget(MathFn fn) {
  switch (fn) {
    case MathFn::div:
      return FnBudget{2.5};
    case MathFn::sqrt:  // inherited from 1.0 / inversesqrt(x): 2 ULP, then a 2.5 ULP division
      return FnBudget{4.5};
    case MathFn::rsqrt:
      return FnBudget{2};
    default:
      return std::nullopt;
  }
}

const MathProfile& vulkan_spec_math_profile() {
  static const VulkanSpecProfile p;
  return p;
}

}  // namespace gp::vk
