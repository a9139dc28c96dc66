#include "reference/tracked.hpp"

#include <limits>

namespace gp::ref {

namespace {

// The long-double reference's own arithmetic: x87 extended precision, glibc's long-double
// functions (their documented maximum errors are 1-3 ULP; erfc 5).
constexpr TrackingContext kLongDouble{nullptr,       DType::f64, DType::f64, std::numeric_limits<long double>::digits,
                                      -16382,        std::numeric_limits<long double>::digits,
                                      -16382,        false};

thread_local const TrackingContext* t_current = nullptr;

FnBudget long_double_budget(MathFn fn) {
  switch (fn) {
    case MathFn::div:
    case MathFn::sqrt:
      return {0.5};
    case MathFn::erf:
    case MathFn::erfc:
      return {5};
    default:
      return {3};
  }
}

// f(x) with derivative d at the exact argument: x's errors propagated, plus the budget.
Tracked library(MathFn fn, const Tracked& x, long double y, long double d, long double x2 = 0) {
  const TrackingContext& ctx = tracking_context();
  Tracked r;
  r.v = y;
  propagate(r.e, x.e, d);
  const FnBudget b = ctx.profile ? ctx.profile->budget(fn, ctx.compute, x.v, y, x2) : long_double_budget(fn);
  const long double own = static_cast<long double>(b.ulps) * compute_ulp(y) + static_cast<long double>(b.abs);
  r.e.det += own;
  r.e.spec += own;
  if (ctx.flush && y != 0 && std::fabs(y) < std::ldexp(1.0L, ctx.min_exponent)) r.e.det += std::fabs(y);
  return r;
}

}  // namespace

const TrackingContext& tracking_context() { return t_current ? *t_current : kLongDouble; }

TrackingScope::TrackingScope(const TrackingContext& ctx) : previous_(t_current), ctx_(ctx) { t_current = &ctx_; }
TrackingScope::~TrackingScope() { t_current = previous_; }

TrackingContext context_for(DType dtype, const MathProfile* profile, bool flush) {
  if (!profile) return kLongDouble;
  TrackingContext c;
  c.profile = profile;
  c.storage = dtype;
  c.compute = dtype == DType::f64 ? DType::f64 : DType::f32;
  c.digits = mantissa_bits(c.compute) + 1;
  c.min_exponent = min_normal_exponent(c.compute);
  c.storage_digits = mantissa_bits(dtype) + 1;
  c.storage_min_exponent = min_normal_exponent(dtype);
  c.flush = flush;
  return c;
}

long double ulp_in(long double v, int digits, int min_exponent) {
  int e = (v == 0 || !std::isfinite(v)) ? min_exponent : std::ilogb(v);
  if (e < min_exponent) e = min_exponent;
  return std::ldexp(1.0L, e - digits + 1);
}

bool representable_in(long double v, int digits, int min_exponent) {
  if (v == 0 || !std::isfinite(v)) return true;
  const long double q = ulp_in(v, digits, min_exponent);
  return std::nearbyint(v / q) * q == v;
}

long double rounding_of(long double v, bool operands_exact) {
  const TrackingContext& ctx = tracking_context();
  if (operands_exact && representable_in(v, ctx.digits, ctx.min_exponent)) return 0;
  long double r = ulp_in(v, ctx.digits, ctx.min_exponent) / 2;
  if (ctx.flush && v != 0 && std::fabs(v) < std::ldexp(1.0L, ctx.min_exponent)) r = std::fmax(r, std::fabs(v));
  return r;
}

bool sum_is_exact(long double a, long double b, long double s) {
  const long double bb = s - a;
  return (a - (s - bb)) + (b - bb) == 0;
}
bool product_is_exact(long double a, long double b, long double p) { return std::fma(a, b, -p) == 0; }

Tracked operator+(const Tracked& a, const Tracked& b) {
  ErrorBound e = a.e;
  propagate(e, b.e, 1);
  const long double s = a.v + b.v;
  return rounded(s, e, a.exact() && b.exact() && sum_is_exact(a.v, b.v, s));
}
Tracked operator-(const Tracked& a, const Tracked& b) { return a + (-b); }
Tracked operator*(const Tracked& a, const Tracked& b) {
  ErrorBound e;
  propagate(e, a.e, b.v);
  propagate(e, b.e, a.v);
  const long double p = a.v * b.v;
  return rounded(p, e, a.exact() && b.exact() && product_is_exact(a.v, b.v, p));
}
Tracked operator/(const Tracked& a, const Tracked& b) {
  const long double q = a.v / b.v;
  if (a.exact() && b.exact() && std::fma(q, b.v, -a.v) == 0 &&
      representable_in(q, tracking_context().digits, tracking_context().min_exponent)) {
    Tracked r;
    r.v = q;
    return r;
  }
  Tracked r = library(MathFn::div, b, q, q / b.v);
  propagate(r.e, a.e, 1 / b.v);
  return r;
}
Tracked operator-(const Tracked& a) {
  Tracked r = a;
  r.v = -a.v;
  return r;
}

Tracked& Tracked::operator+=(const Tracked& o) { return *this = *this + o; }
Tracked& Tracked::operator-=(const Tracked& o) { return *this = *this - o; }
Tracked& Tracked::operator*=(const Tracked& o) { return *this = *this * o; }
Tracked& Tracked::operator/=(const Tracked& o) { return *this = *this / o; }

Tracked exp(const Tracked& x) {
  const long double y = std::exp(x.v);
  return library(MathFn::exp, x, y, y);
}
Tracked expm1(const Tracked& x) { return library(MathFn::expm1, x, std::expm1(x.v), std::exp(x.v)); }
Tracked log(const Tracked& x) { return library(MathFn::log, x, std::log(x.v), 1 / x.v); }
Tracked log1p(const Tracked& x) { return library(MathFn::log1p, x, std::log1p(x.v), 1 / (1 + x.v)); }
Tracked sqrt(const Tracked& x) {
  const long double y = std::sqrt(x.v);
  if (x.exact() && std::fma(y, y, -x.v) == 0 &&
      representable_in(y, tracking_context().digits, tracking_context().min_exponent)) {
    Tracked r;
    r.v = y;
    return r;
  }
  return library(MathFn::sqrt, x, y, 1 / (2 * y));
}
Tracked pow(const Tracked& x, const Tracked& y) {
  const long double z = std::pow(x.v, y.v);
  Tracked r = library(MathFn::pow, x, z, y.v * std::pow(x.v, y.v - 1), y.v);
  propagate(r.e, y.e, z * std::log(x.v));
  return r;
}
Tracked sin(const Tracked& x) { return library(MathFn::sin, x, std::sin(x.v), std::cos(x.v)); }
Tracked cos(const Tracked& x) { return library(MathFn::cos, x, std::cos(x.v), std::sin(x.v)); }
Tracked tanh(const Tracked& x) {
  const long double t = std::tanh(x.v), c = std::cosh(x.v);
  return library(MathFn::tanh, x, t, 1 / (c * c));
}
Tracked erf(const Tracked& x) {
  const long double d = 2 / std::sqrt(3.14159265358979323846264338327950288L) * std::exp(-x.v * x.v);
  return library(MathFn::erf, x, std::erf(x.v), d);
}
Tracked erfc(const Tracked& x) {
  const long double d = 2 / std::sqrt(3.14159265358979323846264338327950288L) * std::exp(-x.v * x.v);
  return library(MathFn::erfc, x, std::erfc(x.v), d);
}
Tracked fabs(const Tracked& x) {
  Tracked r = x;
  r.v = std::fabs(x.v);
  return r;
}
Tracked floor(const Tracked& x) {
  Tracked r;
  r.v = std::floor(x.v);
  return r;
}
Tracked fmod(const Tracked& x, const Tracked& y) {
  Tracked r;
  r.v = std::fmod(x.v, y.v);
  return r;
}

}  // namespace gp::ref
