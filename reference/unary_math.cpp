// The unary op table. Each line gives f, f', f'' and the formula-stage error terms as expressions
// of x (the input) and a (the attributes); the list generates one entry per op.
#include "reference/unary_math.hpp"

#include <array>
#include <cmath>

#include "reference/mp_real.hpp"

namespace gp::ref {

namespace {

// Unqualified calls find these for long double and Boost's overloads for MpReal (ADL).
using std::acos;
using std::cos;
using std::erf;
using std::erfc;
using std::exp;
using std::expm1;
using std::fabs;
using std::log;
using std::log1p;
using std::pow;
using std::sin;
using std::sqrt;
using std::tanh;

// Constants in the precision of R, computed once per type.
template <class R>
struct Constants {
  R pi = acos(R(-1));
  R sqrt2 = sqrt(R(2));
  R inv_sqrt_2pi = 1 / sqrt(2 * pi);
  R gelu_c = sqrt(2 / pi);           // sqrt(2/pi)
  R gelu_k = R(44715) / R(1000000);  // 0.044715
  static const Constants& get() {
    static const Constants c;
    return c;
  }
};
template <class R>
const Constants<R>& K() {
  return Constants<R>::get();
}

template <class R>
R sgn(R x) {
  return x > 0 ? R(1) : (x < 0 ? R(-1) : R(0));
}

// Logistic function without overflow on either side.
template <class R>
R sigmoid(R x) {
  if (x >= 0) return 1 / (1 + exp(-x));
  R e = exp(x);
  return e / (1 + e);
}

// The formulas below avoid forms that cancel (the oracle, oracle.hpp, measures what is left):
// 1 - s for s = sigmoid(x) near 1, 1 - tanh^2 near |tanh| = 1, 1 + tanh(u) for u << 0, 1 - 2s
// near x = 0. Each difference of nearly equal numbers becomes a direct expression of the result.

// sigmoid'(x) = s (1 - s) = e / (1 + e)^2 with e = exp(-|x|) (even in x); 1 - 2s = -tanh(x/2).
template <class R>
R dsigmoid(R x) {
  R e = exp(-fabs(x));
  return e / ((1 + e) * (1 + e));
}

// sech^2(x) = 1 - tanh^2(x) = 4 e / (1 + e)^2 with e = exp(-2|x|).
template <class R>
R sech2(R x) {
  R e = exp(-2 * fabs(x));
  return 4 * e / ((1 + e) * (1 + e));
}

template <class R>
R softplus(R x) {
  return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

// --- gelu, erf form: y = x Phi(x) ---------------------------------------------------------------
template <class R>
R big_phi(R x) {  // erfc keeps the left tail accurate
  return erfc(-x / K<R>().sqrt2) / 2;
}
template <class R>
R small_phi(R x) {
  return K<R>().inv_sqrt_2pi * exp(-x * x / 2);
}

// --- gelu, tanh form: y = x (1 + tanh U) / 2, U = c (x + k x^3) ----------------------------------
// (1 + tanh U) / 2 = sigmoid(2U) and 1 - tanh^2 U = sech^2 U are evaluated directly: the literal
// forms cancel for U << 0 (relative error 8.7e-10 at x = -6 in long double, as the oracle showed).
template <class R>
struct GeluTanh {
  R u, du, ddu, t, half_1pt, sech2;
  explicit GeluTanh(R x)
      : u(K<R>().gelu_c * (x + K<R>().gelu_k * x * x * x)),
        du(K<R>().gelu_c * (1 + 3 * K<R>().gelu_k * x * x)),
        ddu(K<R>().gelu_c * 6 * K<R>().gelu_k * x),
        t(tanh(u)),
        half_1pt(sigmoid(2 * u)),
        sech2(gp::ref::sech2(u)) {}
};

template <class R>
R gelu_f(R x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return x * big_phi(x);
  return x * GeluTanh<R>(x).half_1pt;
}

template <class R>
R gelu_d1(R x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return big_phi(x) + x * small_phi(x);
  GeluTanh<R> g(x);
  return g.half_1pt + x * g.sech2 * g.du / 2;
}

template <class R>
R gelu_d2(R x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return small_phi(x) * (2 - x * x);
  GeluTanh<R> g(x);
  return g.sech2 * g.du + x * g.sech2 * (g.ddu - 2 * g.t * g.du * g.du) / 2;
}

// The contract writes gelu as x (1 + erf(x/sqrt2)) / 2 or x (1 + tanh U) / 2: the 1 + erf (1 + tanh)
// sum cancels for negative x, an absolute error of u (1 + |erf|) in the bracket, times |x| / 2.
template <class R>
R gelu_fwd_stage(R x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return fabs(x) / 2 * (1 + fabs(erf(x / K<R>().sqrt2)));
  GeluTanh<R> g(x);
  return fabs(x) / 2 * (1 + fabs(g.t) + 3 * g.sech2 * fabs(g.u));
}

// Gradient: Phi from (1 + erf)/2 (absolute error (1 + |erf|)/2); tanh form: the error of T itself
// (result and argument rounding) times |d f'/dT|, plus the roundings of 1 + T and 1 - T^2.
template <class R>
R gelu_bwd_stage(R x, const OpAttrs& a) {
  if (a.gelu == GeluApprox::erf) return (1 + fabs(erf(x / K<R>().sqrt2))) / 2;
  GeluTanh<R> g(x);
  R t_error = fabs(g.t) + 3 * g.sech2 * fabs(g.u);
  return fabs(R(0.5) - x * g.t * g.du) * t_error + (1 + fabs(g.t)) / 2 + fabs(x) * g.du * (1 + g.t * g.t) / 2;
}

// The gradients of tanh, sigmoid and silu are written with the forward value (g (1 - y^2),
// g y (1 - y), s (1 + x (1 - s))): a kernel that rounds y first carries |d f'/dy| * scale(y).
template <class R>
R tanh_bwd_stage(R x, const OpAttrs&) {
  R t = tanh(x);
  return 2 * fabs(t) * (fabs(t) + fabs(x) * sech2(x));
}
template <class R>
R sigmoid_bwd_stage(R x, const OpAttrs&) {
  R s = sigmoid(x);
  return fabs(1 - 2 * s) * (s + fabs(x) * s * (1 - s));
}
template <class R>
R silu_bwd_stage(R x, const OpAttrs&) {
  R s = sigmoid(x);
  return fabs(1 + x - 2 * x * s) * (s + fabs(x) * s * (1 - s)) + s * (1 + fabs(x) * (1 - s));
}

// name, f, f', f'', forward stage, backward stage. Parenthesise arguments that contain commas.
#define GP_REF_UNARY_TABLE(X)                                                                                      \
  X(neg, -x, R(-1), R(0), R(0), R(0))                                                                              \
  X(square, x* x, 2 * x, R(2), R(0), R(0))                                                                         \
  X(reciprocal, 1 / x, -1 / (x * x), 2 / (x * x * x), R(0), R(0))                                                  \
  X(abs, fabs(x), sgn(x), R(0), R(0), R(0))                                                                        \
  X(exp, exp(x), exp(x), exp(x), R(0), R(0))                                                                       \
  X(expm1, expm1(x), exp(x), exp(x), R(0), R(0))                                                                   \
  X(log, log(x), 1 / x, -1 / (x * x), R(0), R(0))                                                                  \
  X(log1p, log1p(x), 1 / (1 + x), -1 / ((1 + x) * (1 + x)), R(0), R(0))                                            \
  X(sqrt, sqrt(x), 1 / (2 * sqrt(x)), -1 / (4 * x * sqrt(x)), R(0), R(0))                                          \
  X(rsqrt, 1 / sqrt(x), -1 / (2 * x * sqrt(x)), 3 / (4 * x * x * sqrt(x)), R(0), R(0))                             \
  X(pow_scalar, (pow(x, R(a.p))), (R(a.p) * pow(x, R(a.p - 1))), (R(a.p) * R(a.p - 1) * pow(x, R(a.p - 2))), R(0), \
    R(0))                                                                                                          \
  X(sin, sin(x), cos(x), -sin(x), R(0), R(0))                                                                      \
  X(cos, cos(x), -sin(x), -cos(x), R(0), R(0))                                                                     \
  X(tanh, tanh(x), sech2(x), -2 * tanh(x) * sech2(x), R(0), tanh_bwd_stage(x, a))                                  \
  X(sigmoid, sigmoid(x), dsigmoid(x), -dsigmoid(x) * tanh(x / 2), R(0), sigmoid_bwd_stage(x, a))                   \
  X(softplus, softplus(x), sigmoid(x), dsigmoid(x), R(1), R(0))                                                    \
  X(silu, x* sigmoid(x), sigmoid(x) + x * dsigmoid(x), dsigmoid(x) * (2 - x * tanh(x / 2)), R(0),                  \
    silu_bwd_stage(x, a))                                                                                          \
  X(relu, (x > 0 ? x : R(0)), R(x > 0 ? 1 : 0), R(0), R(0), R(0))                                                  \
  X(leaky_relu, (x > 0 ? x : R(a.alpha) * x), (x > 0 ? R(1) : R(a.alpha)), R(0), R(0), R(0))                       \
  X(elu, (x > 0 ? x : R(a.alpha) * expm1(x)), (x > 0 ? R(1) : R(a.alpha) * exp(x)),                                \
    (x > 0 ? R(0) : R(a.alpha) * exp(x)), (x > 0 ? R(0) : fabs(R(a.alpha)) * exp(x)), R(0))                        \
  X(gelu, gelu_f(x, a), gelu_d1(x, a), gelu_d2(x, a), gelu_fwd_stage(x, a), gelu_bwd_stage(x, a))

template <class R>
struct Entry {
  OpKind kind;
  BasicUnaryMath<R> math;
};

#define GP_REF_UNARY_ENTRY(name, F, D1, D2, FS, BS)                                                       \
  Entry<R>{OpKind::name,                                                                                  \
           {[](R x, const OpAttrs& a) -> R { return F; }, [](R x, const OpAttrs& a) -> R { return D1; },  \
            [](R x, const OpAttrs& a) -> R { return D2; }, [](R x, const OpAttrs& a) -> R { return FS; }, \
            [](R x, const OpAttrs& a) -> R { return BS; }}},

template <class R>
const auto& table() {
  static const std::array kTable = {GP_REF_UNARY_TABLE(GP_REF_UNARY_ENTRY)};
  return kTable;
}

#undef GP_REF_UNARY_ENTRY
#undef GP_REF_UNARY_TABLE

}  // namespace

template <class R>
const BasicUnaryMath<R>* basic_unary_math(OpKind k) {
  for (const auto& e : table<R>())
    if (e.kind == k) return &e.math;
  return nullptr;
}

template const BasicUnaryMath<long double>* basic_unary_math<long double>(OpKind);
template const BasicUnaryMath<MpReal>* basic_unary_math<MpReal>(OpKind);

}  // namespace gp::ref
