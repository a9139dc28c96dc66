// The Vulkan backend's math. Where the shaders call a GLSL built-in, its budget is what the
// Vulkan specification allows a conformant device (appendix "Precision and Operation of SPIR-V
// Instructions"; f64 built-ins are held to the f32 figures, the spec's floor for them). Where
// the shaders compute a function themselves (shaders/math.glsl: every f64 transcendental, and
// exp, log, pow, expm1, log1p, tanh, erf/erfc, sin and cos in every type), the budget follows that code: the budgets of
// the built-ins it calls, propagated through its formula, plus its own roundings. Each derivation is next to its
// figure; the parity runs on lavapipe and NVIDIA check them.
#include <cmath>

#include "vulkan_backend.hpp"

namespace gp::vk {

namespace {

// m_exp: the reduction r = (x - k LN2_HI) - k LN2_LO errs by one rounding of k LN2_LO and of
// the difference (below u |r| <= 0.35 u, relative to e^r); Horner's steps p r + 1/j! each
// round once, their errors damped by |r| <= 0.35 per later step (about 1.2 ULP together); the
// scaling by 2^k is exact. 3 ULP with room for a fused multiply-add or not.
constexpr double kExpUlps = 3;

// m_sin_quadrant in f32 (reduce_pio2 with pi/2 in four parts, then the series). For |k| < 2^12
// the reduced r errs by at most three roundings of about u |r| (each subtraction is exact by
// Sterbenz while |r| is below half the product it subtracts, else rounded by u times
// |r| (1 + 2^-11)), plus |k| (u |part 4| + 2e-21), below 0.1 u |r| since |r| >= 4.1e-9 for
// every float within 6433 of zero: 3.1 u relative. It reaches sin r through r cot r <= 1 and
// cos r through r tan r <= pi/4. The series: each level's roundings (z, the step constant, two
// products, the subtraction) damped by z/((2i)(2i+1)) before the next: 1.6 u (sin), 3.4 u
// (cos), and sin's product by r, u. 5.7 u in all: 6 ULP, as u |v| is below an ULP of v.
constexpr double kSinCosF32Ulps = 6;
// Beyond the quadrants where the products k * part are exact (|k| < 2^12 in f32, where pi/2's
// first part has 12 bits; |k| < 2^20 in f64, 33 bits) they round, by up to u |x| each: 2u |x|
// absolute, which past |x| = 2^23 (f32) leaves no digit (the shader then keeps |r| <= 1).
double sin_cos_reduction_error(DType c, long double x) {
  const long double k = std::nearbyint(std::fabs(x) * 0.63661977236758134308L);
  const bool f64 = c == DType::f64;
  if (k < (f64 ? 0x1p20L : 0x1p12L)) return 0;
  return (f64 ? 0x1p-52 : 0x1p-23) * static_cast<double>(std::fabs(x));
}

class VulkanProfile final : public MathProfile {
 public:
  std::string source() const override {
    return "Vulkan SPIR-V precision table; the shaders' own functions (math.glsl)";
  }

  FnBudget budget(MathFn fn, DType c, long double x, long double y, long double x2) const override {
    if (auto b = vulkan_arithmetic_budget(fn)) return *b;
    const bool f64 = c == DType::f64;
    switch (fn) {
      case MathFn::div:
      case MathFn::sqrt:
      case MathFn::rsqrt:
        break;  // vulkan_arithmetic_budget
      case MathFn::exp:
        return {kExpUlps};
      case MathFn::log:
        return {4};
      case MathFn::pow: {
        // m_exp(t), t = y m_log(x): an absolute error d of t is a relative error d of the result.
        const long double t = x2 * std::log(x);
        const double d = static_cast<double>(std::fabs(x2)) * log_error(c, x) + ulp_at(c, t) / 2;
        return {kExpUlps, static_cast<double>(std::fabs(y)) * d};
      }
      case MathFn::sin:
      case MathFn::cos:
        // f64: quadrant reduction with pi/2 in three parts and Taylor series: 3 ULP.
        return {f64 ? 3.0 : kSinCosF32Ulps, sin_cos_reduction_error(c, x)};
      case MathFn::expm1:
        return expm1_budget(c, x);
      case MathFn::log1p:
        // (-0.25, 0.375): 2 atanh(x / (2 + x)) by its series: the division and two roundings.
        // Elsewhere log(1 + x): the rounding of 1 + x (half an ULP of it, an absolute error of
        // about u after the log) and the log's own budget.
        if (x > -0.25L && x < 0.375L) return {6};
        return {0.5, ulp_at(c, 1 + x) / 2 / static_cast<double>(1 + x) + log_error(c, 1 + x)};
      case MathFn::tanh: {
        // -em / (2 + em), em = expm1(-2|x|): expm1's absolute error through d/dem = 2 / (2 + em)^2,
        // the rounding of 2 + em, and the division.
        const long double em = std::expm1(-2 * std::fabs(x));
        const FnBudget e = expm1_budget(c, -2 * std::fabs(x));
        const double em_err = e.ulps * ulp_at(c, em) + e.abs;
        const double two_em = static_cast<double>(2 + em);
        return {3, em_err * 2 / (two_em * two_em) +
                       ulp_at(c, 2 + em) / 2 * static_cast<double>(std::fabs(em)) / (two_em * two_em)};
      }
      case MathFn::erf:
      case MathFn::erfc:
        return erfc_budget(c, fn == MathFn::erf ? -x : x, y, fn == MathFn::erf);
    }
    return {};
  }

 private:
  // m_log, an absolute error: 2 atanh(s) with s = (m - 1) / (m + 1) (m - 1 exact, the sum and the
  // quotient rounded, the series' own roundings damped by s^2 <= 0.03) plus the exponent times
  // ln 2 in two parts: 4 ULP of the result.
  static double log_error(DType c, long double v) { return 4 * ulp_at(c, std::log(v)); }

  // |x| < 0.5: an 18-term Taylor series in Horner form, (t + 1) x / j: 6 ULP. Elsewhere
  // exp(x) - 1: exp's budget as an absolute error of e^x, then the rounding of the difference.
  static FnBudget expm1_budget(DType c, long double x) {
    if (std::fabs(x) < 0.5L) return {6};
    return {0.5, kExpUlps * ulp_at(c, std::exp(x))};
  }

  // erfc(w) with q = erfc(|w|) computed, and 2 - q for w < 0 (Phi(x) = 1 - q/2 for x >= 0).
  // f32: q = e h(t) / (1 + 2z), e = exp(-z^2) from the density's exp(-x^2/2): exp's 3 ULP, the
  // rounding of x^2 (z^2/2 ULP), the fit (1.4e-8) and its f32 evaluation (9.1e-8 together,
  // tools/fit_erfc.py), the product, the sum and the division: 8 + z^2 / 2 ULP.
  // f64: z < 2: q = 1 - erf(z) by an all-positive series times m_exp: erf within about 20 ULP,
  // an absolute error of 24 * 2^-53 in q; z >= 2: a continued fraction (60 terms from the tail)
  // times m_exp: 10 + z^2 ULP.
  static FnBudget erfc_budget(DType c, long double w, long double y, bool is_erf) {
    const long double z = std::fabs(w);
    const long double q = std::erfc(z);
    double q_err;
    if (c == DType::f64)
      q_err = z < 2 ? 24 * 0x1p-53 : (10 + static_cast<double>(z * z)) * ulp_at(c, q);
    else
      q_err = (8 + 0.5 * static_cast<double>(z * z)) * ulp_at(c, q);
    if (w >= 0 && !is_erf) return {0, q_err};
    return {0.5, q_err};  // 2 - q, or erf = 1 - erfc
  }
};

}  // namespace

const MathProfile& vulkan_math_profile() {
  static const VulkanProfile p;
  return p;
}

}  // namespace gp::vk
