#include "reference/tracked.hpp"

#include <bit>
#include <cstring>
#include <limits>

namespace gp::ref {

namespace {

// The x87 80-bit format, read directly (tracked.hpp's detail::parts): libm's ilogbl, ldexpl,
// nearbyintl and fmal (software on x86-64, each saving the floating-point environment) were two
// thirds of a Tracked evaluation. Every long double the reference meets is normal (subnormal long
// doubles are below 2^-16382).
using detail::odd_part;
using detail::parts;

long double power_of_two(int e) {
  // Subnormals by their bit pattern too: the long-double spacing at zero, 2^-16445, is asked for
  // at every zero product of a long-double Tracked run (a B-spline basis is mostly zeros).
  if (e < -16445 || e > 16383) return std::ldexp(1.0L, e);
  unsigned char b[sizeof(long double)] = {};
  const bool subnormal = e <= -16383;
  const std::uint64_t m = std::uint64_t{1} << (subnormal ? e + 16445 : 63);
  const auto se = static_cast<std::uint16_t>(subnormal ? 0 : e + 16383);
  std::memcpy(b, &m, 8);
  std::memcpy(b + 8, &se, 2);
  long double v;
  std::memcpy(&v, b, sizeof v);
  return v;
}
// The odd part of |v| and its exponent: v = +-odd * 2^e (odd = 0 for zero).

}  // namespace

namespace {

// The long-double reference's own arithmetic: x87 extended precision, glibc's long-double
// functions (their documented maximum errors are 1-3 ULP; erfc 5).
constexpr TrackingContext kLongDouble{nullptr,    DType::f64,
                                      DType::f64, std::numeric_limits<long double>::digits,
                                      -16382,     std::numeric_limits<long double>::digits,
                                      -16382,     false};

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
  if (ctx.profile) note_profile_read();
  const FnBudget b = ctx.profile ? ctx.profile->budget(fn, ctx.compute, x.v, y, x2) : long_double_budget(fn);
  // A correctly rounded IEEE operation (division, square root) is a rounding like any other, in
  // the standard model (a kernel may multiply by a rounded reciprocal instead). Every other
  // budget is the device's specification of that function's result, in ULPs of it, counted
  // once: a correctly rounded sin too. Charged as a rounding, u |y| counted kFormulation times,
  // correct rounding allowed up to 2 ULP where glibc's 1-ULP sin is held to 1.
  const bool ieee_operation = fn == MathFn::div || fn == MathFn::sqrt;
  if (ieee_operation && b.ulps <= 0.5 && b.abs == 0) {
    r.e.det += rounding_of(y, false);
  } else {
    const long double own = static_cast<long double>(b.ulps) * compute_ulp(y) + static_cast<long double>(b.abs);
    r.e.det += own;
    r.e.spec += own;
  }
  if (y != 0 && std::fabs(y) < power_of_two(ctx.min_exponent)) {
    note_flush_read();
    if (ctx.flush) r.e.det += std::fabs(y);
  }
  if (std::fabs(y) >= rounding_unit().overflow) r.e.det = std::numeric_limits<long double>::infinity();
  return r;
}

// kLongDouble's unit as constants, so that the thread's default is constant-initialised (no TLS
// wrapper): 2^-64, 2^-16382, half of 2^-16445, which rounds to zero, and long double's overflow
// threshold (2 - 2^-64) 2^16383, which is past its largest value: infinity (tests/unit/test_tracked
// checks them against rounding_unit_of).
constexpr ActiveTracking kLongDoubleTracking{
    kLongDouble, {0x1p-64L, 0x1p-16382L, 0.0L, false, std::numeric_limits<long double>::infinity()}};

}  // namespace

namespace detail {
constinit thread_local const ActiveTracking* t_active = &kLongDoubleTracking;
}  // namespace detail

namespace {
constinit thread_local std::uint64_t t_profile_reads = 0;
}  // namespace

namespace detail {
constinit thread_local std::uint64_t t_flush_reads = 0;
}  // namespace detail

ProfileReads::ProfileReads() : start_(t_profile_reads) {}
bool ProfileReads::any() const { return t_profile_reads != start_; }
void note_profile_read() { ++t_profile_reads; }
FlushReads::FlushReads() : start_(detail::t_flush_reads) {}
bool FlushReads::any() const { return detail::t_flush_reads != start_; }

RoundingUnit rounding_unit_of(const TrackingContext& ctx) {
  RoundingUnit unit;
  unit.u = power_of_two(-ctx.digits);
  unit.min_normal = power_of_two(ctx.min_exponent);
  unit.floor = ulp_in(0, ctx.digits, ctx.min_exponent) / 2;
  unit.flush = ctx.flush;
  // IEEE formats have emax = 1 - emin. Long double's threshold is past its own range: infinity.
  const int emax = 1 - ctx.min_exponent;
  unit.overflow = ctx.digits >= std::numeric_limits<long double>::digits
                      ? std::numeric_limits<long double>::infinity()
                      : std::ldexp(2.0L - power_of_two(-ctx.digits), emax);
  return unit;
}

TrackingScope::TrackingScope(const TrackingContext& ctx)
    : previous_(detail::t_active), active_{ctx, rounding_unit_of(ctx)} {
  detail::t_active = &active_;
}
TrackingScope::~TrackingScope() { detail::t_active = previous_; }

TrackingContext context_for(DType dtype, const MathProfile* profile, bool flush, std::optional<OpKind> op) {
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
  c.reads_output = op && profile->backward_reads_output(*op);
  return c;
}

Tracked read_input(long double x) {
  Tracked r(x);
  const TrackingContext& c = tracking_context();
  if (x != 0 && std::fabs(x) < power_of_two(c.min_exponent)) {
    note_flush_read();
    if (c.flush) r.e.det += std::fabs(x);
  }
  return r;
}

bool backward_reads_output() {
  const TrackingContext& c = tracking_context();
  if (c.profile) note_profile_read();
  return c.reads_output;
}

long double ulp_in(long double v, int digits, int min_exponent) {
  int e = (v == 0 || !std::isfinite(v)) ? min_exponent : parts(v).exponent;
  if (e < min_exponent) e = min_exponent;
  return power_of_two(e - digits + 1);
}

Tracked staged(const Tracked& v) {
  const TrackingContext& c = tracking_context();
  Tracked r = v;
  if (c.storage_digits >= c.digits) return r;
  if (v.exact() && representable_in(v.v, c.storage_digits, c.storage_min_exponent)) return r;
  const long double a = std::fabs(v.v);
  long double own =
      std::max(a * power_of_two(-c.storage_digits), ulp_in(v.v, c.storage_digits, c.storage_min_exponent) / 2);
  if (a != 0 && a < power_of_two(c.storage_min_exponent)) {
    note_flush_read();
    if (c.flush) own = std::fmax(own, a);
  }
  r.e.det += own;
  r.e.spec += own;
  return r;
}

long double rounded_to(long double v, int digits, int min_exponent) {
  if (representable_in(v, digits, min_exponent)) return v;
  const long double q = ulp_in(v, digits, min_exponent);
  return std::nearbyint(v / q) * q;  // only for constants: not on a hot path
}

bool sum_is_exact(long double a, long double b, long double s) {
  const long double bb = s - a;
  return (a - (s - bb)) + (b - bb) == 0;
}

Tracked operator+(const Tracked& a, const Tracked& b) {
  ErrorBound e = a.e;
  propagate(e, b.e, 1);
  const long double s = a.v + b.v;
  return rounded(s, e, a.exact() && b.exact() && sum_is_exact(a.v, b.v, s));
}
Tracked operator-(const Tracked& a, const Tracked& b) { return a + (-b); }
namespace {

// The product's second-order term, |a' b' - a b| - (|b| da + |a| db) <= da db, with da and db the
// operands' worst-case errors (kFormulation (det + acc), as the bound counts them), charged where
// it exceeds 2^-11 of the first-order part: below that it is under 0.05 % of the propagated part
// (as exp's tangent, exp_slope below). Where an operand's error reaches its own size the first
// order fails: a B-spline basis (1 - f)^5 / 5! next to a knot, where f's error exceeds 1 - f, came
// out about 60 times the exact basis on every built-in backend, the first order allowing about 20
// (found by hunt). Added to det as da db / kFormulation, which the bound counts kFormulation times.
long double second_order(const Tracked& a, const Tracked& b) {
  const long double k = kFormulation;
  const long double da = k * (a.e.det + a.e.acc), db = k * (b.e.det + b.e.acc);
  const long double s = da * db;
  if (!(s > 0x1p-11L * (std::fabs(b.v) * da + std::fabs(a.v) * db))) return 0;
  return s / k;
}

}  // namespace

Tracked operator*(const Tracked& a, const Tracked& b) {
  ErrorBound e;
  propagate(e, a.e, b.v);
  propagate(e, b.e, a.v);
  e.det += second_order(a, b);
  const long double p = a.v * b.v;
  Tracked r;
  r.v = p;
  r.e = e;
  r.e.det += rounding_given(p, a.exact() && b.exact() && exact_product(a.v, b.v, p).representable);
  return r;
}
// Exactness has to hold for every formulation a kernel may use: an exact quotient a / 7 is not
// exact as a * (1 / 7), so a quotient counts as exact only by a power of two, whose reciprocal is
// exact too; a square root (x * rsqrt(x)) never.
Tracked operator/(const Tracked& a, const Tracked& b) {
  const long double q = a.v / b.v;
  if (a.exact() && b.exact() && odd_part(b.v).odd == 1 && product_is_exact(q, b.v, a.v) &&
      representable_in(q, tracking_context().digits, tracking_context().min_exponent)) {
    Tracked r;
    r.v = q;
    return r;
  }
  Tracked r = library(MathFn::div, b, q, q / b.v);
  propagate(r.e, a.e, 1 / b.v);
  // A divisor whose own error bound reaches its size may be zero in a correct kernel (a subnormal
  // operand that a flushing device reads as zero: NVIDIA's Vulkan, found by hunt): no bound of the
  // first order holds for the quotient.
  const long double k = kFormulation;
  if (b.v != 0 && k * (b.e.det + b.e.acc) >= std::fabs(b.v)) r.e.det = std::numeric_limits<long double>::infinity();
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

namespace {

// The slope through which exp and expm1 propagate their argument's error: the secant over the
// argument's worst-case error interval, (exp(x + d) - exp(x)) / d, where the tangent exp(x) of
// the first order would not hold. The secant exceeds the tangent by a factor 1 + d/2 + ...: below
// d = 2^-10 that is under 0.05 % of the propagated part, less than the 1 % the bound adds for the
// reference's own share, and the tangent is kept. Where d reaches 1 the first order fails: a term
// A + B of log_matmul_exp near 1.8e19, rounded in f32 by 2^40, moves exp(t - m) from e^-942 to
// 1/2, which the tangent e^-942 cannot bound (found by hunt). Past long double's range the slope
// is infinite, and the element outside the model's range (docs/error-model.md, Range).
long double exp_slope(const Tracked& x, long double y) {
  const long double k = kFormulation;
  const long double d = k * x.e.det + k * x.e.acc;
  if (!(d >= 0x1p-10L)) return y;
  return (std::exp(x.v + d) - y) / d;
}

}  // namespace

Tracked exp(const Tracked& x) {
  const long double y = std::exp(x.v);
  return library(MathFn::exp, x, y, exp_slope(x, y));
}
Tracked expm1(const Tracked& x) { return library(MathFn::expm1, x, std::expm1(x.v), exp_slope(x, std::exp(x.v))); }
Tracked log(const Tracked& x) { return library(MathFn::log, x, std::log(x.v), 1 / x.v); }
Tracked log1p(const Tracked& x) { return library(MathFn::log1p, x, std::log1p(x.v), 1 / (1 + x.v)); }
Tracked sqrt(const Tracked& x) {
  const long double y = std::sqrt(x.v);
  // |sqrt(x + e) - sqrt(x)| <= sqrt(|e|) at any x >= 0 (concavity). Where the slope 1 / (2 sqrt x)
  // would charge more, at x within its own error of 0 (an Adam second moment of a gradient that is
  // exactly 0), the slope charged is 1 / sqrt(e): infinite at x = 0 otherwise.
  const long double e = x.e.det + x.e.acc;
  long double slope = 1 / (2 * y);
  if (e > 0)
    slope = std::min(slope, 1 / std::sqrt(e));
  else if (y == 0)
    slope = 0;
  return library(MathFn::sqrt, x, y, slope);
}
Tracked pow(const Tracked& x, const Tracked& y) {
  const long double z = std::pow(x.v, y.v);
  Tracked r = library(MathFn::pow, x, z, y.v * z / x.v, y.v);
  if (y.e.det != 0 || y.e.acc != 0 || y.e.prob != 0) propagate(r.e, y.e, z * std::log(x.v));
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
