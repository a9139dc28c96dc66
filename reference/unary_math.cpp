// The unary op table. Each line gives f, f' and f' from y as expressions of x (the input), y (the
// forward output) and a (the attributes); the list generates one entry per op.
#include "reference/unary_math.hpp"

#include <array>
#include <cmath>
#include <type_traits>

#include "reference/mp_real.hpp"
#include "reference/tracked.hpp"

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

// Constants in the precision of R, computed once per type. A kernel holds them as literals of
// its compute dtype: the Tracked ones come from the long-double values, rounded like a literal.
template <class R>
struct Constants {
  R pi = acos(R(-1));
  R inv_sqrt2 = 1 / sqrt(R(2));
  R inv_sqrt_2pi = 1 / sqrt(2 * pi);
  R gelu_c = sqrt(2 / pi);           // sqrt(2/pi)
  R gelu_k = R(44715) / R(1000000);  // 0.044715
};
template <class R>
const Constants<R>& K() {
  static const Constants<R> c;
  return c;
}
// Per call: the literal's rounding depends on the compute dtype of the current evaluation.
struct TrackedConstants {
  Tracked inv_sqrt2, inv_sqrt_2pi, gelu_c, gelu_k;
  TrackedConstants()
      : inv_sqrt2(K<long double>().inv_sqrt2),
        inv_sqrt_2pi(K<long double>().inv_sqrt_2pi),
        gelu_c(K<long double>().gelu_c),
        gelu_k(K<long double>().gelu_k) {}
};
template <class R>
auto constants() {
  if constexpr (std::is_same_v<R, Tracked>)
    return TrackedConstants();
  else
    return K<R>();
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

// sigmoid'(x) = s (1 - s) = e / (1 + e)^2 with e = exp(-|x|) (even in x).
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

// Round half to even, for ste_round.
template <class R>
R round_half_even(const R& x) {
  using std::floor;
  using std::fmod;
  R r = floor(x), frac = x - r;
  if (frac > R(0.5)) return r + 1;
  if (frac < R(0.5)) return r;
  return fmod(r, R(2)) == 0 ? r : R(r + 1);
}

template <class R>
R softplus(R x) {
  return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

// --- gelu, erf form: y = x Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2 (erfc keeps the left tail) ---
template <class R>
R big_phi(R x) {
  return erfc(-x * constants<R>().inv_sqrt2) / 2;
}
template <class R>
R small_phi(R x) {
  return constants<R>().inv_sqrt_2pi * exp(-(x * x) / 2);
}

// --- gelu, tanh form: y = x (1 + tanh U) / 2 = x sigmoid(2U), U = c (x + k x^3) ------------------
// (1 + tanh U) / 2 = sigmoid(2U) and 1 - tanh^2 U = sech^2 U are evaluated directly: the literal
// forms cancel for U << 0 (relative error 8.7e-10 at x = -6 in long double, as the oracle showed).
template <class R>
struct GeluTanh {
  R u, du, half_1pt, sech2;
  explicit GeluTanh(R x) {
    const auto k = constants<R>();
    u = k.gelu_c * (x + k.gelu_k * (x * x * x));
    du = k.gelu_c * (1 + 3 * k.gelu_k * (x * x));
    half_1pt = sigmoid(2 * u);
    sech2 = gp::ref::sech2(u);
  }
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

// name, f, f', f' from (x, y). Parenthesise arguments that contain commas. The y forms are those
// of the catalog's contract (core/README.md) and of the kernels that read y.
#define GP_REF_UNARY_TABLE(X)                                                                                        \
  X(neg, -x, R(-1), R(-1))                                                                                           \
  X(square, x* x, 2 * x, 2 * x)                                                                                      \
  X(reciprocal, 1 / x, -1 / (x * x), -(y * y))                                                                       \
  X(abs, fabs(x), sgn(x), sgn(x))                                                                                    \
  X(exp, exp(x), exp(x), y)                                                                                          \
  X(expm1, expm1(x), exp(x), y + 1)                                                                                  \
  X(log, log(x), 1 / x, 1 / x)                                                                                       \
  X(log1p, log1p(x), 1 / (1 + x), 1 / (1 + x))                                                                       \
  X(sqrt, sqrt(x), 1 / (2 * sqrt(x)), 1 / (2 * y))                                                                   \
  X(rsqrt, 1 / sqrt(x), -1 / (2 * x * sqrt(x)), -(y / (2 * x)))                                                      \
  X(pow_scalar, (pow(x, R(a.p))), (R(a.p) * pow(x, R(a.p) - 1)), (R(a.p) * pow(x, R(a.p) - 1)))                      \
  X(sin, sin(x), cos(x), cos(x))                                                                                     \
  X(cos, cos(x), -sin(x), -sin(x))                                                                                   \
  X(tanh, tanh(x), sech2(x), 1 - y * y)                                                                              \
  X(sigmoid, sigmoid(x), dsigmoid(x), y*(1 - y))                                                                     \
  X(softplus, softplus(x), sigmoid(x), sigmoid(x))                                                                   \
  X(silu, x* sigmoid(x), sigmoid(x) + x * dsigmoid(x), sigmoid(x) + x * dsigmoid(x))                                 \
  X(relu, (x > 0 ? x : R(0)), R(x > 0 ? 1 : 0), R(x > 0 ? 1 : 0))                                                    \
  X(leaky_relu, (x > 0 ? x : R(a.alpha) * x), (x > 0 ? R(1) : R(a.alpha)), (x > 0 ? R(1) : R(a.alpha)))              \
  X(elu, (x > 0 ? x : R(a.alpha) * expm1(x)), (x > 0 ? R(1) : R(a.alpha) * exp(x)), (x > 0 ? R(1) : y + R(a.alpha))) \
  X(gelu, gelu_f(x, a), gelu_d1(x, a), gelu_d1(x, a))                                                                \
  X(hardswish, /* x min(max(x + 3, 0), 6) / 6: x 0 below -3, which is NaN at -inf */                                 \
    (x <= -3  ? x * R(0)                                                                                             \
     : x >= 3 ? x                                                                                                    \
              : x * (x + 3) / 6),                                                                                    \
    (x <= -3  ? R(0)                                                                                                 \
     : x >= 3 ? R(1)                                                                                                 \
              : (2 * x + 3) / 6),                                                                                    \
    (x <= -3  ? R(0)                                                                                                 \
     : x >= 3 ? R(1)                                                                                                 \
              : (2 * x + 3) / 6))                                                                                    \
  /* surrogate gradients (the catalog's gradient column): straight-through */                                        \
  X(ste_round, round_half_even(x), R(1), R(1))                                                                       \
  X(ste_hardtanh_gate, R(x > 0 ? 1 : 0), R(fabs(x) < 1 ? 1 : 0), R(fabs(x) < 1 ? 1 : 0))

template <class R>
struct Entry {
  OpKind kind;
  BasicUnaryMath<R> math;
};

#define GP_REF_UNARY_ENTRY(name, F, D1, DY)                                                              \
  Entry<R>{OpKind::name,                                                                                 \
           {[](R x, const OpAttrs& a) -> R { return F; }, [](R x, const OpAttrs& a) -> R { return D1; }, \
            [](R x, [[maybe_unused]] R y, const OpAttrs& a) -> R { return DY; }}},

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
template const BasicUnaryMath<Tracked>* basic_unary_math<Tracked>(OpKind);

}  // namespace gp::ref
