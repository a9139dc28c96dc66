// Element types. f16 and bf16 are storage formats: kernels compute in f32 and round on store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gp {

enum class DType : std::uint8_t { f16, bf16, f32, f64, i32 };

std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
std::vector<DType> float_dtypes();  // f16, bf16, f32, f64
std::size_t dtype_size(DType t);
bool is_float(DType t);

// Unit roundoff u = 2^-p (half an ULP at 1.0): f16 2^-11, bf16 2^-8, f32 2^-24, f64 2^-53.
double unit_roundoff(DType t);
// Number of explicit mantissa bits and the smallest normal exponent, for ULP arithmetic.
int mantissa_bits(DType t);
int min_normal_exponent(DType t);
// Significant decimal digits that tell every value of t from its neighbours (9 for f32, 17 for f64).
int round_trip_digits(DType t);

// Correctly rounded (round-to-nearest-even) conversions. Inputs are double so that one rounding
// happens, never two (double -> f32 -> f16 would double-round).
std::uint16_t f16_from_double(double x);
double f16_to_double(std::uint16_t bits);
std::uint16_t bf16_from_double(double x);
double bf16_to_double(std::uint16_t bits);
// f32 <-> 16-bit helpers used by kernels that store 16-bit results computed in f32.
inline std::uint16_t f16_from_float(float x) { return f16_from_double(x); }
inline float f16_to_float(std::uint16_t b) { return static_cast<float>(f16_to_double(b)); }
inline std::uint16_t bf16_from_float(float x) { return bf16_from_double(x); }
inline float bf16_to_float(std::uint16_t b) { return static_cast<float>(bf16_to_double(b)); }

// The value x rounded to the nearest value representable in t (identity for f64).
double round_to(DType t, double x);

// Distance in units in the last place of t between a and b (both assumed representable in t or
// not: the distance is measured on t's grid, fractional). NaN vs number gives +inf.
double ulp_distance(DType t, double a, double b);
// Size of one ULP of t at magnitude |x| (subnormal-aware).
double ulp_of(DType t, double x);
// The largest finite value of a floating-point dtype: (2 - 2^(1-p)) 2^emax, emax = 1 - emin.
double largest_finite(DType t);

}  // namespace gp
