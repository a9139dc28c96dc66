// Tracked: a long-double number that carries a first-order bound of the error a correct kernel
// commits computing it in a lower precision. The reference's formulas are generic over their
// real type; instantiated with Tracked they return, besides the values, per-element bounds built
// from the function itself:
//   * one rounding (u |v|, the standard model, u = 2^-p of the compute dtype) per arithmetic
//     result, none where the kernel's operation is exact too (operands without error, a
//     representable result);
//   * the device's budget (MathProfile) for each library call, at its argument;
//   * each error propagated through the exact partial derivatives of what follows;
//   * accumulations (Sum<Tracked>) bounded twice: worst case for the sequential order, and
//     probabilistically (the roundings are independent and mean zero, Higham & Mary 2019), the
//     smaller one counting (harness/check/tolerance.hpp);
//   * stored(y): a 16-bit intermediate a kernel reads back (the forward output y of a backward).
// Because the reference's formulas are the stable ones (the oracle checks them), the bounds are
// those of a stable implementation: they do not grow with intermediate terms that cancel.
// Internal to reference/.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "core/math_profile.hpp"
#include "reference/reference.hpp"

namespace gp::ref {

// The arithmetic a Tracked evaluation models. Set for the current thread by TrackingScope.
struct TrackingContext {
  const MathProfile* profile = nullptr;  // null: the long-double reference's own arithmetic
  DType compute = DType::f32;
  DType storage = DType::f32;
  int digits = 24;          // significand bits p of the compute arithmetic
  int min_exponent = -126;  // smallest normal exponent
  int storage_digits = 24, storage_min_exponent = -126;
  bool flush = false;  // subnormals may become zero
  // The device declares that the evaluated op's backward computes from the forward's value
  // (MathProfile::backward_reads_output); read through backward_reads_output(), which counts it.
  bool reads_output = false;
};

// The standard model's constants of a context, for rounding_of, which a Tracked evaluation calls
// three times per accumulated term: 2^-p, 2^emin and the half spacing below the normal range.
struct RoundingUnit {
  long double u = 0, min_normal = 0, floor = 0;
  bool flush = false;
  // The smallest magnitude that rounds to infinity in the compute arithmetic: (2 - 2^-p) 2^emax.
  long double overflow = 0;
};
RoundingUnit rounding_unit_of(const TrackingContext& ctx);

// The context current on this thread with its unit. Read inline: a function call and a TLS
// wrapper per rounding were a fifth of a model's bounds.
struct ActiveTracking {
  TrackingContext ctx;
  RoundingUnit unit;
};
namespace detail {
extern constinit thread_local const ActiveTracking* t_active;
}  // namespace detail

inline const TrackingContext& tracking_context() { return detail::t_active->ctx; }
inline const RoundingUnit& rounding_unit() { return detail::t_active->unit; }

// Makes `ctx` current on this thread for its lifetime (nests).
class TrackingScope {
 public:
  explicit TrackingScope(const TrackingContext& ctx);
  ~TrackingScope();
  TrackingScope(const TrackingScope&) = delete;
  TrackingScope& operator=(const TrackingScope&) = delete;

 private:
  const ActiveTracking* previous_;
  ActiveTracking active_;
};

// Whether this thread's evaluations read a device profile while it lives. A Tracked evaluation
// reads its profile in one place, the budget of a library function (and whether there is a
// profile at all), so one that charged no budget is the same under every profile of its dtype
// and flush mode: a matmul's bounds are the same for cpu, OpenCL and Vulkan, an exp's are not.
// A value computed earlier under a profile and read back (a cache, a memo) counts as a read
// through note_profile_read(). ctest architecture/profile-reads fails on a profile read
// elsewhere.
class ProfileReads {
 public:
  ProfileReads();
  bool any() const;

 private:
  std::uint64_t start_;
};
void note_profile_read();

// Whether this thread's evaluations depended on the flush mode while it lives: a value below the
// smallest normal number met where a device that may flush loses it (a rounding, a library
// result, an input read, a staged value). One that met none is the same whether the device may
// flush or not: the reference cache and the node memo keep it once for both (lavapipe's and
// NVIDIA's Vulkan, which may flush, and the cpu and PoCL, which do not). A value computed earlier
// and read back counts through note_flush_read() as for the profile. ctest
// architecture/profile-reads fails on a flush mode read outside the counted sites.
class FlushReads {
 public:
  FlushReads();
  bool any() const;

 private:
  std::uint64_t start_;
};
namespace detail {
extern constinit thread_local std::uint64_t t_flush_reads;
}  // namespace detail
inline void note_flush_read() { ++detail::t_flush_reads; }

// The context of a case dtype on a device profile; the long-double reference itself when
// profile is null. `op`: the op evaluated, whose declared backward formulation the context holds.
TrackingContext context_for(DType dtype, const MathProfile* profile, bool flush, std::optional<OpKind> op = {});

// Whether the device declares that the current op's backward computes from the forward's value
// (MathProfile::backward_reads_output), so that its bound covers that form too (either_form).
// A read of the device's profile: counted (ProfileReads) wherever a profile is current.
bool backward_reads_output();

// A long double's bits, inline where they are read: a Tracked dot product asks of each product
// whether it is exact and representable, and as calls these were a third of its time.
namespace detail {
static_assert(std::numeric_limits<long double>::digits == 64, "x87 extended precision expected");
struct Parts {
  std::uint64_t mantissa;  // explicit leading bit at 63; 0 for zero
  int exponent;            // unbiased: value = mantissa * 2^(exponent - 63)
};
// By reference: a long double in memory is read where it lies (a copy by value is an x87 store
// whose bytes the integer loads after it cannot take from the store buffer, a stall of tens of
// cycles).
inline Parts parts(const long double& v) {
  unsigned char b[sizeof(long double)];
  std::memcpy(b, &v, sizeof b);
  Parts p{};
  std::uint16_t se = 0;
  std::memcpy(&p.mantissa, b, 8);
  std::memcpy(&se, b + 8, 2);
  p.exponent = (se & 0x7fff) - 16383;
  return p;
}
// +0 or -0, read from v's own bytes: through parts(), a copy of v by value, an x87 store whose
// bytes the integer loads after it could not take from the store buffer (a stall of tens of
// cycles per test, a sixth of a Tracked dot product).
inline bool is_zero(const long double& v) {
  std::uint64_t mantissa = 0;
  std::uint16_t sign_exponent = 0;
  std::memcpy(&mantissa, &v, 8);
  std::memcpy(&sign_exponent, reinterpret_cast<const unsigned char*>(&v) + 8, 2);
  return mantissa == 0 && (sign_exponent & 0x7fff) == 0;
}
struct Odd {
  std::uint64_t odd;  // 0 for zero
  int e;              // value = odd * 2^e
};
inline Odd odd_part(const long double& v) {
  const Parts p = parts(v);
  if (p.mantissa == 0) return {0, 0};
  const int tz = std::countr_zero(p.mantissa);
  return {p.mantissa >> tz, p.exponent - 63 + tz};
}
}  // namespace detail

long double ulp_in(long double v, int digits, int min_exponent);
inline long double compute_ulp(long double v) {
  const TrackingContext& c = tracking_context();
  return ulp_in(v, c.digits, c.min_exponent);
}
inline bool representable_in(long double v, int digits, int min_exponent) {
  if (v == 0 || !std::isfinite(v)) return true;
  const detail::Parts p = detail::parts(v);
  const int drop = 64 - digits + std::max(0, min_exponent - p.exponent);
  if (drop >= 64) return false;
  return drop <= 0 || (p.mantissa & ((std::uint64_t{1} << drop) - 1)) == 0;
}
// v rounded to nearest in a format of `digits` significand bits and that smallest normal exponent.
long double rounded_to(long double v, int digits, int min_exponent);
// The exponent of v's lowest set bit: v is a multiple of 2^that (v != 0).
inline int lowest_bit_exponent(long double v) { return detail::odd_part(v).e; }
// Whether odd * 2^e (odd > 0 and odd, a normal long double) is representable in `digits` bits with
// that smallest normal exponent: representable_in's test on the odd part.
inline bool odd_representable(detail::Odd z, int digits, int min_exponent) {
  const int bits = std::bit_width(z.odd), lead = z.e + bits - 1;
  const int drop = 64 - digits + std::max(0, min_exponent - lead);
  if (drop >= 64) return false;
  return drop <= 0 || bits <= 64 - drop;
}

struct Tracked {
  long double v = 0;
  ErrorBound e;

  Tracked() = default;
  // A constant or an input: exact when the compute dtype holds it, else its rounding.
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
  Tracked(T c) : v(static_cast<long double>(c)) {  // NOLINT: constants convert implicitly, as for long double
    const TrackingContext& ctx = tracking_context();
    e.det = std::fabs(v - rounded_to(v, ctx.digits, ctx.min_exponent));
  }
  explicit operator long double() const { return v; }
  bool exact() const { return e.det == 0 && e.acc == 0 && e.prob == 0; }

  Tracked& operator+=(const Tracked& o);
  Tracked& operator-=(const Tracked& o);
  Tracked& operator*=(const Tracked& o);
  Tracked& operator/=(const Tracked& o);
};

// r.e += |partial| * x.e
inline void propagate(ErrorBound& r, const ErrorBound& x, long double partial) {
  const long double p = std::fabs(partial);
  r.det += p * x.det;
  r.acc += p * x.acc;
  r.prob += p * x.prob;
  r.spec += p * x.spec;
}
// The larger error of two for the bound (harness/check/tolerance.hpp): its library budgets and
// single roundings enter it as spec + kFormulation (det - spec), and everything after this value
// scales both channels alike, so that sum takes the larger of the two; the accumulation channels
// each take theirs. The maxima of det and of spec taken apart could come from different errors
// and fall short of either's bound: log_softmax's gradient on the cpu profile took the stored
// form's det and spec, both the larger, and bounded the probability's error by 8.1e-8 (before
// the factors kReferenceShare adds) where the stable form's bound was 1.3e-7
// (log_softmax(axis=0,shape=7,dtype=f32), seed 1, element 4).
inline ErrorBound channel_max(const ErrorBound& a, const ErrorBound& b) {
  ErrorBound r{0, std::fmax(a.acc, b.acc), std::fmax(a.prob, b.prob), std::fmax(a.spec, b.spec)};
  const long double a_roundings = a.det - a.spec, b_roundings = b.det - b.spec;
  if (a.spec >= b.spec && a_roundings >= b_roundings) {
    r.det = a.det;
  } else if (b.spec >= a.spec && b_roundings >= a_roundings) {
    r.det = b.det;
  } else {  // one has the larger budgets, the other the larger roundings
    const long double k = kFormulation;
    const long double linear = std::fmax(a.spec + k * (a.det - a.spec), b.spec + k * (b.det - b.spec));
    r.det = r.spec + (linear - r.spec) / k;
  }
  return r;
}

// Whether the long-double result of an operation is its exact value (error-free transformations:
// TwoSum, the fused multiply-add residual). An f64 product needs up to 106 bits: its long-double
// rounding can look representable in f64 when the exact product is not.
bool sum_is_exact(long double a, long double b, long double s);
inline bool product_is_exact(long double a, long double b, long double p) {
  const detail::Odd x = detail::odd_part(a), y = detail::odd_part(b), z = detail::odd_part(p);
  if (x.odd == 0 || y.odd == 0) return z.odd == 0;
  const unsigned __int128 xy = static_cast<unsigned __int128>(x.odd) * y.odd;
  return xy == z.odd && x.e + y.e == z.e;
}
// What a Tracked product needs to know of p = a * b when both operands are exact: whether p is
// the exact product and representable in the compute dtype (its rounding is then 0), and where p
// is nonzero and exact, its odd part (its lowest set bit, for Sum's exactness in any order).
// Where a and b are normal long doubles whose odd parts multiply within 64 bits and the product
// stays in the normal range, all of it follows from a's and b's bits: p's own are not read, which
// as a stored x87 value cost a store-forwarding stall per term (a Tracked dot product's every
// term at exact inputs). Elsewhere product_is_exact and representable_in on p decide, as they did.
struct ExactProduct {
  bool representable = false;
  detail::Odd odd;  // valid where representable and p != 0
};
inline ExactProduct exact_product(const long double& a, const long double& b, long double p) {
  const TrackingContext& ctx = tracking_context();
  const detail::Parts pa = detail::parts(a), pb = detail::parts(b);
  constexpr int kSpecial = 16384, kZeroOrSubnormal = -16383;  // exponent fields 0x7fff and 0
  if (pa.exponent != kSpecial && pb.exponent != kSpecial && pa.exponent != kZeroOrSubnormal &&
      pb.exponent != kZeroOrSubnormal) {
    const detail::Odd x = detail::odd_part(a), y = detail::odd_part(b);
    const unsigned __int128 xy = static_cast<unsigned __int128>(x.odd) * y.odd;
    if (xy >> 64) return {};  // more than 64 bits: p is rounded
    const detail::Odd z{static_cast<std::uint64_t>(xy), x.e + y.e};
    const int lead = z.e + std::bit_width(z.odd) - 1;
    if (lead >= -16382 && lead <= 16383) return {odd_representable(z, ctx.digits, ctx.min_exponent), z};
  }
  if (!product_is_exact(a, b, p) || !representable_in(p, ctx.digits, ctx.min_exponent)) return {};
  return {true, p != 0 ? detail::odd_part(p) : detail::Odd{}};
}
// The rounding of an arithmetic result v: 0 when the kernel's operation is exact too (exact
// operands, an exact long-double result representable in the compute dtype).
// The standard model, u |v| (u = 2^-digits), not the exact half ULP at v: a kernel's
// intermediates are other values of the same size, anywhere in their binade (the exact half ULP
// of the reference's value is as small as u |v| / 2). Below the normal range the spacing is fixed
// (half of it, `floor`), and a device that flushes may lose |v| whole. At or above 2^emin,
// u |v| is at least the half ULP, so the maximum of the two is u |v| itself.
// rounding_given: the same where whether v is exact and representable is already known.
inline long double rounding_given(long double v, bool exact_result) {
  const RoundingUnit& unit = rounding_unit();
  const long double a = std::fabs(v);
  // Past the range of the compute arithmetic a kernel's result is infinite, and no finite bound
  // holds for what follows (docs/error-model.md, "Range"): the bound says so by being infinite.
  if (a >= unit.overflow) return std::numeric_limits<long double>::infinity();
  if (exact_result) return 0;
  long double r = a * unit.u;
  if (!(a >= unit.min_normal)) {
    r = std::max(r, unit.floor);
    if (v != 0 && a < unit.min_normal) {
      note_flush_read();
      if (unit.flush) r = std::fmax(r, a);
    }
  }
  return r;
}
inline long double rounding_of(long double v, bool operands_exact) {
  const TrackingContext& ctx = tracking_context();
  return rounding_given(v, operands_exact && representable_in(v, ctx.digits, ctx.min_exponent));
}
// v with the errors of the operands already propagated into e, plus its own rounding.
inline Tracked rounded(long double v, const ErrorBound& e, bool operands_exact) {
  Tracked r;
  r.v = v;
  r.e = e;
  r.e.det += rounding_of(v, operands_exact);
  return r;
}

Tracked operator+(const Tracked& a, const Tracked& b);
Tracked operator-(const Tracked& a, const Tracked& b);
Tracked operator*(const Tracked& a, const Tracked& b);
Tracked operator/(const Tracked& a, const Tracked& b);
Tracked operator-(const Tracked& a);

inline bool operator<(const Tracked& a, const Tracked& b) { return a.v < b.v; }
inline bool operator>(const Tracked& a, const Tracked& b) { return a.v > b.v; }
inline bool operator<=(const Tracked& a, const Tracked& b) { return a.v <= b.v; }
inline bool operator>=(const Tracked& a, const Tracked& b) { return a.v >= b.v; }
inline bool operator==(const Tracked& a, const Tracked& b) { return a.v == b.v; }
inline bool operator!=(const Tracked& a, const Tracked& b) { return a.v != b.v; }

// Library functions, each charged the profile's budget at its argument.
Tracked exp(const Tracked& x);
Tracked expm1(const Tracked& x);
Tracked log(const Tracked& x);
Tracked log1p(const Tracked& x);
Tracked sqrt(const Tracked& x);
Tracked pow(const Tracked& x, const Tracked& y);
Tracked sin(const Tracked& x);
Tracked cos(const Tracked& x);
Tracked tanh(const Tracked& x);
Tracked erf(const Tracked& x);
Tracked erfc(const Tracked& x);
// Exact operations: selections and integer parts.
Tracked fabs(const Tracked& x);
Tracked floor(const Tracked& x);
Tracked fmod(const Tracked& x, const Tracked& y);

// A value a kernel reads back from a buffer of the storage type: a 16-bit storage type rounds it
// once more (the forward output y a backward receives). Identity for the value types.
inline Tracked stored(const Tracked& y) {
  const TrackingContext& c = tracking_context();
  Tracked r = y;
  if (c.storage_digits < c.digits) r.e.det += ulp_in(y.v, c.storage_digits, c.storage_min_exponent) / 2;
  return r;
}

// A value the op's definition rounds to the storage type before computing on with it
// (OpAttrs::staged: softmax's exp(x - max), log_softmax's x - max). The standard model at the
// storage precision, u_s max(|v|, smallest normal) (a kernel's value is another of the same
// size, anywhere in its binade), none where v is exact and the storage type holds it; |v| below
// the smallest normal on a device that may flush. Counted once, in spec as well as det: it is
// the one rounding the definition prescribes, like the final store's, not a single rounding of
// the formulation that a kernel's own formulation may commit twice. Identity for the value types.
Tracked staged(const Tracked& v);

// Two formulas of one value that a kernel may use: the value of the first (the stable one, for
// the reference's accuracy), the larger error of either. Called where backward_reads_output():
// a backward that reads the rounded forward output y, such as tanh's g (1 - y^2), is then the
// declared computation; its error grows where 1 - y^2 cancels, and the bound follows it there.
inline Tracked either_form(const Tracked& stable, const Tracked& other) {
  Tracked r = stable;
  r.e = channel_max(stable.e, other.e);
  return r;
}

// An input value as a kernel reads it: exact (a value of the storage type), or zero where the
// device may flush subnormal operands (denormals-are-zero: NVIDIA's Vulkan reads a subnormal bf16
// operand widened to f32 as 0, which hunt found in log_matmul_exp near 1e-38).
Tracked read_input(long double x);

// The value of a computed quantity without its errors (a selection whose error is accounted
// for separately).
inline Tracked detached(const Tracked& x) {
  Tracked r;
  r.v = x.v;
  return r;
}

}  // namespace gp::ref
