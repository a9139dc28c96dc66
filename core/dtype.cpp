#include "core/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>

#include "core/enum_table.hpp"

namespace gp {

namespace {

struct FloatFormat {
  int mantissa;  // explicit fraction bits
  int exponent_bits;
  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  int min_exp() const { return 1 - bias(); }  // exponent of the smallest normal
  int max_exp() const { return bias(); }
};

constexpr FloatFormat kF16{10, 5};
constexpr FloatFormat kBF16{7, 8};

// Rounds x to the format's grid with round-to-nearest-even; the result is a double holding the
// exact representable value (or +-inf on overflow). std::nearbyint follows the default
// FE_TONEAREST mode, which is ties-to-even.
double round_to_format(double x, const FloatFormat& f) {
  if (!std::isfinite(x) || x == 0.0) return x;
  int e = std::ilogb(x);
  if (e < f.min_exp()) e = f.min_exp();  // subnormals share the smallest normal's quantum
  double quantum = std::ldexp(1.0, e - f.mantissa);
  double r = std::nearbyint(x / quantum) * quantum;
  double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -f.mantissa), f.max_exp());
  if (std::fabs(r) > max_finite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

// Round-to-nearest-even on the double's bits, for an x whose result is a normal number of the
// format (nullopt otherwise: zero, subnormal, overflow, infinity, NaN take the general path). The
// general path's ilogb and ldexp cost about 100 ns an element: minutes for the large tier's bf16
// tensors of 2^31 elements.
// The format is a template argument: its shifts and masks constants (generic, they were a fifth
// of drawing a bf16 tensor).
template <FloatFormat f>
std::optional<std::uint16_t> encode_normal(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const int exponent = static_cast<int>((bits >> 52) & 0x7FF) - 1023;
  if (exponent < f.min_exp() || exponent > f.max_exp()) return std::nullopt;
  const int drop = 52 - f.mantissa;
  std::uint64_t magnitude = bits & ~(std::uint64_t{1} << 63);
  magnitude += (std::uint64_t{1} << (drop - 1)) - 1 + ((magnitude >> drop) & 1);  // ties to even
  const std::uint64_t kept = magnitude >> drop;  // exponent and mantissa; a carry moves the exponent
  const int rounded_exponent = static_cast<int>(kept >> f.mantissa) - 1023;
  if (rounded_exponent > f.max_exp()) return std::nullopt;  // rounds to infinity
  const int total_bits = 1 + f.exponent_bits + f.mantissa;
  const std::uint64_t sign = (bits >> 63) << (total_bits - 1);
  const auto biased = static_cast<std::uint64_t>(rounded_exponent + f.bias());
  return static_cast<std::uint16_t>(sign | (biased << f.mantissa) | (kept & ((std::uint64_t{1} << f.mantissa) - 1)));
}

template <FloatFormat f>
std::uint16_t encode(double x) {
  if (const std::optional<std::uint16_t> fast = encode_normal<f>(x)) return *fast;
  const int total_bits = 1 + f.exponent_bits + f.mantissa;
  const std::uint16_t sign = std::signbit(x) ? static_cast<std::uint16_t>(1u << (total_bits - 1)) : 0;
  const std::uint16_t exp_mask = static_cast<std::uint16_t>(((1u << f.exponent_bits) - 1) << f.mantissa);
  if (std::isnan(x)) return static_cast<std::uint16_t>(sign | exp_mask | (1u << (f.mantissa - 1)));
  double r = round_to_format(x, f);
  if (std::isinf(r)) return static_cast<std::uint16_t>(sign | exp_mask);
  double a = std::fabs(r);
  if (a == 0.0) return sign;
  int e = std::ilogb(a);
  if (e < f.min_exp()) {  // subnormal: value = m * 2^(min_exp - mantissa)
    auto m = static_cast<std::uint16_t>(std::ldexp(a, f.mantissa - f.min_exp()));
    return static_cast<std::uint16_t>(sign | m);
  }
  auto m = static_cast<std::uint16_t>(std::ldexp(a, f.mantissa - e) - std::ldexp(1.0, f.mantissa));
  auto biased = static_cast<std::uint16_t>(e + f.bias());
  return static_cast<std::uint16_t>(sign | (biased << f.mantissa) | m);
}

template <FloatFormat f>
double decode(std::uint16_t bits) {
  const int total_bits = 1 + f.exponent_bits + f.mantissa;
  const bool negative = (bits >> (total_bits - 1)) & 1u;
  const unsigned biased = (bits >> f.mantissa) & ((1u << f.exponent_bits) - 1);
  const unsigned m = bits & ((1u << f.mantissa) - 1);
  if (biased != 0 && biased != (1u << f.exponent_bits) - 1) {  // normal: the double's bits directly
    const std::uint64_t exponent = static_cast<std::uint64_t>(static_cast<int>(biased) - f.bias() + 1023);
    return std::bit_cast<double>((std::uint64_t{negative} << 63) | (exponent << 52) |
                                 (static_cast<std::uint64_t>(m) << (52 - f.mantissa)));
  }
  double v;
  if (biased == (1u << f.exponent_bits) - 1) {
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (biased == 0) {
    v = std::ldexp(static_cast<double>(m), f.min_exp() - f.mantissa);
  } else {
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.mantissa), static_cast<int>(biased) - f.bias());
  }
  return negative ? -v : v;
}

}  // namespace

namespace {

// One row per dtype, in the enum's order.
struct DTypeRow {
  std::string_view name;
  std::size_t size;
  int mantissa_bits;        // 0 for i32
  int min_normal_exponent;  // 0 for i32
};
constexpr DTypeRow kDTypes[] = {
    {"f16", 2, 10, -14}, {"bf16", 2, 7, -126}, {"f32", 4, 23, -126}, {"f64", 8, 52, -1022}, {"i32", 4, 0, 0}};
static_assert(std::size(kDTypes) == static_cast<std::size_t>(DType::i32) + 1);

}  // namespace

std::string_view dtype_name(DType t) { return enum_row(kDTypes, t).name; }

std::optional<DType> parse_dtype(std::string_view name) {
  return enum_from_name<DType>(name, kDTypes, &DTypeRow::name);
}

std::vector<DType> float_dtypes() { return {DType::f16, DType::bf16, DType::f32, DType::f64}; }

std::size_t dtype_size(DType t) { return enum_row(kDTypes, t).size; }

bool is_float(DType t) { return t != DType::i32; }

int mantissa_bits(DType t) { return enum_row(kDTypes, t).mantissa_bits; }

int min_normal_exponent(DType t) { return enum_row(kDTypes, t).min_normal_exponent; }

int round_trip_digits(DType t) {
  if (!is_float(t)) return 10;
  return static_cast<int>(std::ceil(1 + (mantissa_bits(t) + 1) * std::log10(2.0)));
}

double unit_roundoff(DType t) { return t == DType::i32 ? 0.0 : std::ldexp(1.0, -(mantissa_bits(t) + 1)); }

std::uint16_t f16_from_double(double x) { return encode<kF16>(x); }
double f16_to_double(std::uint16_t bits) { return decode<kF16>(bits); }
std::uint16_t bf16_from_double(double x) { return encode<kBF16>(x); }
double bf16_to_double(std::uint16_t bits) { return decode<kBF16>(bits); }

double round_to(DType t, double x) {
  switch (t) {
    case DType::f16:
      return f16_to_double(f16_from_double(x));
    case DType::bf16:
      return bf16_to_double(bf16_from_double(x));
    case DType::f32:
      return static_cast<double>(static_cast<float>(x));
    case DType::f64:
      return x;
    case DType::i32:
      return std::nearbyint(x);
  }
  return x;
}

double ulp_of(DType t, double x) {
  if (t == DType::i32) return 1.0;
  double a = std::fabs(x);
  int e = (a == 0.0 || !std::isfinite(a)) ? min_normal_exponent(t) : std::ilogb(a);
  if (e < min_normal_exponent(t)) e = min_normal_exponent(t);
  return std::ldexp(1.0, e - mantissa_bits(t));
}

double ulp_distance(DType t, double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0.0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::infinity();
  if (a == b) return 0.0;
  if (std::isinf(a) || std::isinf(b)) return std::numeric_limits<double>::infinity();
  // Measure on the grid of the smaller magnitude's binade so that one step is one ULP there.
  double step = ulp_of(t, std::fabs(a) < std::fabs(b) ? a : b);
  return std::fabs(a - b) / step;
}

double largest_finite(DType t) {
  const int p = mantissa_bits(t) + 1;
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - p), 1 - min_normal_exponent(t));
}

}  // namespace gp
