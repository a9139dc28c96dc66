// The unary op table. Each line gives f, f', f'' and the formula-stage error terms as expressions
// of x (the input) and a (the attributes); the list generates one entry per op.
#include "reference/unary_math.hpp"

#include <array>
#include <cmath>
#include <numbers>

namespace gp::ref {

namespace {

using std::fabs;

constexpr Real kSqrt2 = std::numbers::sqrt2_v<Real>;
constexpr Real kInvSqrt2Pi = std::numbers::inv_sqrtpi_v<Real> / std::numbers::sqrt2_v<Real>;
constexpr Real kGeluC = std::numbers::sqrt2_v<Real> * std::numbers::inv_sqrtpi_v<Real>;  // sqrt(2/pi)
constexpr Real kGeluK = 0.044715L;

Real sgn(Real x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

// Logistic function without overflow on either side.
Real sigmoid(Real x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  Real e = std::exp(x);
  return e / (1 + e);
}

Real softplus(Real x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

// --- gelu, erf form: y = x Phi(x) ---------------------------------------------------------------
Real big_phi(Real x) { return std::erfc(-x / kSqrt2) / 2; }  // erfc keeps the left tail accurate
Real small_phi(Real x) { return kInvSqrt2Pi * std::exp(-x * x / 2); }

// --- gelu, tanh form: y = x (1 + tanh U) / 2, U = c (x + k x^3) ----------------------------------
struct GeluTanh {
  Real u, du, ddu, t;
  explicit GeluTanh(Real x)
      : u(kGeluC * (x + kGeluK * x * x * x)),
        du(kGeluC * (1 + 3 * kGeluK * x * x)),
        ddu(kGeluC * 6 * kGeluK * x),
        t(std::tanh(u)) {}
  Real sech2() const { return 1 - t * t; }
};

Real gelu_f(Real x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return x * big_phi(x);
  return x * (1 + GeluTanh(x).t) / 2;
}

Real gelu_d1(Real x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return big_phi(x) + x * small_phi(x);
  GeluTanh g(x);
  return (1 + g.t) / 2 + x * g.sech2() * g.du / 2;
}

Real gelu_d2(Real x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return small_phi(x) * (2 - x * x);
  GeluTanh g(x);
  return g.sech2() * g.du + x * g.sech2() * (g.ddu - 2 * g.t * g.du * g.du) / 2;
}

// The contract writes gelu as x (1 + erf(x/sqrt2)) / 2 or x (1 + tanh U) / 2: the 1 + erf (1 + tanh)
// sum cancels for negative x, an absolute error of u (1 + |erf|) in the bracket, times |x| / 2.
Real gelu_fwd_stage(Real x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return fabs(x) / 2 * (1 + fabs(std::erf(x / kSqrt2)));
  GeluTanh g(x);
  return fabs(x) / 2 * (1 + fabs(g.t) + 3 * g.sech2() * fabs(g.u));
}

// Gradient: Phi from (1 + erf)/2 (absolute error (1 + |erf|)/2); tanh form: the error of T itself
// (result and argument rounding) times |d f'/dT|, plus the roundings of 1 + T and 1 - T^2.
Real gelu_bwd_stage(Real x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return (1 + fabs(std::erf(x / kSqrt2))) / 2;
  GeluTanh g(x);
  Real t_error = fabs(g.t) + 3 * g.sech2() * fabs(g.u);
  return fabs(Real(0.5) - x * g.t * g.du) * t_error + (1 + fabs(g.t)) / 2 + fabs(x) * g.du * (1 + g.t * g.t) / 2;
}

// The gradients of tanh, sigmoid and silu are written with the forward value (g (1 - y^2),
// g y (1 - y), s (1 + x (1 - s))): a kernel that rounds y first carries |d f'/dy| * scale(y).
Real tanh_bwd_stage(Real x, const OpAttrs&) {
  Real t = std::tanh(x);
  return 2 * fabs(t) * (fabs(t) + fabs(x) * (1 - t * t));
}
Real sigmoid_bwd_stage(Real x, const OpAttrs&) {
  Real s = sigmoid(x);
  return fabs(1 - 2 * s) * (s + fabs(x) * s * (1 - s));
}
Real silu_bwd_stage(Real x, const OpAttrs&) {
  Real s = sigmoid(x);
  return fabs(1 + x - 2 * x * s) * (s + fabs(x) * s * (1 - s)) + s * (1 + fabs(x) * (1 - s));
}

// name, f, f', f'', forward stage, backward stage. Parenthesise arguments that contain commas.
#define GP_REF_UNARY_TABLE(X)                                                                                      \
  X(neg, -x, -1, 0, 0, 0)                                                                                          \
  X(square, x* x, 2 * x, 2, 0, 0)                                                                                  \
  X(reciprocal, 1 / x, -1 / (x * x), 2 / (x * x * x), 0, 0)                                                        \
  X(abs, fabs(x), sgn(x), 0, 0, 0)                                                                                 \
  X(exp, std::exp(x), std::exp(x), std::exp(x), 0, 0)                                                              \
  X(expm1, std::expm1(x), std::exp(x), std::exp(x), 0, 0)                                                          \
  X(log, std::log(x), 1 / x, -1 / (x * x), 0, 0)                                                                   \
  X(log1p, std::log1p(x), 1 / (1 + x), -1 / ((1 + x) * (1 + x)), 0, 0)                                             \
  X(sqrt, std::sqrt(x), 1 / (2 * std::sqrt(x)), -1 / (4 * x * std::sqrt(x)), 0, 0)                                 \
  X(rsqrt, 1 / std::sqrt(x), -1 / (2 * x * std::sqrt(x)), 3 / (4 * x * x * std::sqrt(x)), 0, 0)                    \
  X(pow_scalar, (std::pow(x, Real(a.p))), (a.p * std::pow(x, Real(a.p - 1))),                                      \
    (a.p * (a.p - 1) * std::pow(x, Real(a.p - 2))), 0, 0)                                                          \
  X(sin, std::sin(x), std::cos(x), -std::sin(x), 0, 0)                                                             \
  X(cos, std::cos(x), -std::sin(x), -std::cos(x), 0, 0)                                                            \
  X(tanh, std::tanh(x), 1 - std::tanh(x) * std::tanh(x), -2 * std::tanh(x) * (1 - std::tanh(x) * std::tanh(x)), 0, \
    tanh_bwd_stage(x, a))                                                                                          \
  X(sigmoid, sigmoid(x), sigmoid(x) * (1 - sigmoid(x)), sigmoid(x) * (1 - sigmoid(x)) * (1 - 2 * sigmoid(x)), 0,   \
    sigmoid_bwd_stage(x, a))                                                                                       \
  X(softplus, softplus(x), sigmoid(x), sigmoid(x) * (1 - sigmoid(x)), 1, 0)                                        \
  X(silu, x* sigmoid(x), sigmoid(x) * (1 + x * (1 - sigmoid(x))),                                                  \
    sigmoid(x) * (1 - sigmoid(x)) * (2 + x * (1 - 2 * sigmoid(x))), 0, silu_bwd_stage(x, a))                       \
  X(relu, (x > 0 ? x : 0), (x > 0 ? 1 : 0), 0, 0, 0)                                                               \
  X(leaky_relu, (x > 0 ? x : Real(a.alpha) * x), (x > 0 ? 1 : Real(a.alpha)), 0, 0, 0)                             \
  X(elu, (x > 0 ? x : Real(a.alpha) * std::expm1(x)), (x > 0 ? 1 : Real(a.alpha) * std::exp(x)),                   \
    (x > 0 ? 0 : Real(a.alpha) * std::exp(x)), (x > 0 ? 0 : fabs(Real(a.alpha)) * std::exp(x)), 0)                 \
  X(gelu, gelu_f(x, a), gelu_d1(x, a), gelu_d2(x, a), gelu_fwd_stage(x, a), gelu_bwd_stage(x, a))

struct Entry {
  OpKind kind;
  UnaryMath math;
};

#define GP_REF_UNARY_ENTRY(name, F, D1, D2, FS, BS)                                                                \
  Entry{OpKind::name,                                                                                              \
        {[](Real x, const OpAttrs& a) -> Real { return F; }, [](Real x, const OpAttrs& a) -> Real { return D1; },  \
         [](Real x, const OpAttrs& a) -> Real { return D2; }, [](Real x, const OpAttrs& a) -> Real { return FS; }, \
         [](Real x, const OpAttrs& a) -> Real { return BS; }}},

const std::array kTable = {GP_REF_UNARY_TABLE(GP_REF_UNARY_ENTRY)};

#undef GP_REF_UNARY_ENTRY
#undef GP_REF_UNARY_TABLE

}  // namespace

const UnaryMath* unary_math(OpKind k) {
  for (const auto& e : kTable)
    if (e.kind == k) return &e.math;
  return nullptr;
}

}  // namespace gp::ref
