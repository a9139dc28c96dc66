// core/dtype: the 16-bit storage formats checked exhaustively over all 65,536 bit patterns
// (decode against independent computations, encode against an independent bracketing encoder,
// ties-to-even at every midpoint, overflow, signed zeros, subnormals), then ULP arithmetic,
// unit roundoff and round_to for every dtype.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>

#include "core/dtype.hpp"

namespace gp {
namespace {

constexpr double kDoubleInf = std::numeric_limits<double>::infinity();

// One 16-bit format: its codec under test and its layout, from which the tests derive every
// expectation independently of core/dtype.cpp.
struct Format {
  const char* name;
  DType dtype;
  std::uint16_t (*encode)(double);
  double (*decode)(std::uint16_t);
  int mantissa;  // explicit fraction bits
  int exponent_bits;

  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  std::uint16_t sign_bit() const { return 0x8000; }
  std::uint16_t inf_bits() const { return static_cast<std::uint16_t>(((1u << exponent_bits) - 1) << mantissa); }
  std::uint16_t max_finite_bits() const { return static_cast<std::uint16_t>(inf_bits() - 1); }
  bool is_nan_pattern(std::uint16_t b) const {
    return (b & inf_bits()) == inf_bits() && (b & ((1u << mantissa) - 1)) != 0;
  }
};

// gtest prints a failing parameter through this instead of as raw bytes.
void PrintTo(const Format& f, std::ostream* os) { *os << f.name; }

const Format kF16{"f16", DType::f16, f16_from_double, f16_to_double, 10, 5};
const Format kBF16{"bf16", DType::bf16, bf16_from_double, bf16_to_double, 7, 8};

// sign * 2^(e - bias) * (1 + m / 2^mantissa), subnormals 2^(1 - bias) * m / 2^mantissa, written
// as integer significands times powers of two (exact in double).
double formula_decode(const Format& f, std::uint16_t bits) {
  const unsigned e = (bits >> f.mantissa) & ((1u << f.exponent_bits) - 1);
  const unsigned m = bits & ((1u << f.mantissa) - 1);
  const double sign = (bits & f.sign_bit()) ? -1.0 : 1.0;
  if (e == (1u << f.exponent_bits) - 1) return m ? std::numeric_limits<double>::quiet_NaN() : sign * kDoubleInf;
  const double significand = e == 0 ? m : (1u << f.mantissa) + m;
  const int exponent = (e == 0 ? 1 : static_cast<int>(e)) - f.bias() - f.mantissa;
  return sign * significand * std::pow(2.0, exponent);
}

// A second, hardware-side opinion: the compiler's _Float16 (f16) and the top half of a float32
// pattern (bf16).
double platform_decode(const Format& f, std::uint16_t bits) {
  if (f.dtype == DType::bf16) return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
#if defined(__FLT16_MAX__)
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<double>(h);
#else
  return formula_decode(f, bits);
#endif
}

// Correct rounding by bracketing: positive finite patterns 0..max_finite are ordered like their
// values, so a binary search finds the neighbours a <= |x| < b; the nearer wins, ties go to the
// even pattern, and past max + half an ULP the result is infinity.
std::uint16_t bracketing_encode(const Format& f, double x) {
  const std::uint16_t sign = std::signbit(x) ? f.sign_bit() : 0;
  const double a = std::fabs(x);
  const double max = formula_decode(f, f.max_finite_bits());
  const double max_ulp = std::ldexp(1.0, f.bias() - f.mantissa);
  if (a >= max + max_ulp / 2) return static_cast<std::uint16_t>(sign | f.inf_bits());
  if (a >= max) return static_cast<std::uint16_t>(sign | f.max_finite_bits());
  unsigned lo = 0, hi = f.max_finite_bits();  // invariant: value(lo) <= a < value(hi)
  while (hi - lo > 1) {
    unsigned mid = (lo + hi) / 2;
    (formula_decode(f, static_cast<std::uint16_t>(mid)) <= a ? lo : hi) = mid;
  }
  const double below = a - formula_decode(f, static_cast<std::uint16_t>(lo));
  const double above = formula_decode(f, static_cast<std::uint16_t>(hi)) - a;
  unsigned pick = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
  return static_cast<std::uint16_t>(sign | pick);
}

// Collects mismatches of an exhaustive loop and reports the count with the first few examples.
class Mismatches {
 public:
  template <typename... Parts>
  void add(const Parts&... parts) {
    if (count_++ < 8) {
      ((examples_ << parts), ...);
      examples_ << "\n";
    }
  }
  int count() const { return count_; }
  std::string examples() const { return examples_.str(); }

 private:
  int count_ = 0;
  std::ostringstream examples_;
};

std::string hex(std::uint16_t b) {
  std::ostringstream s;
  s << "0x" << std::hex << b;
  return s.str();
}

class Format16 : public ::testing::TestWithParam<Format> {};

TEST_P(Format16, DecodeMatchesFormulaAndPlatformForAllPatterns) {
  const Format& f = GetParam();
  Mismatches bad;
  for (unsigned b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const double got = f.decode(bits);
    for (double want : {formula_decode(f, bits), platform_decode(f, bits)}) {
      const bool same = std::isnan(want) ? std::isnan(got) : (got == want && std::signbit(got) == std::signbit(want));
      if (!same) bad.add(hex(bits), ": decoded ", got, ", expected ", want);
    }
    if (std::isnan(got) != f.is_nan_pattern(bits)) bad.add(hex(bits), ": NaN-ness wrong, decoded ", got);
  }
  EXPECT_EQ(bad.count(), 0) << bad.examples();
}

TEST_P(Format16, DecodeThenEncodeIsIdentityForAllPatterns) {
  const Format& f = GetParam();
  Mismatches bad;
  for (unsigned b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const std::uint16_t back = f.encode(f.decode(bits));
    if (f.is_nan_pattern(bits) ? !f.is_nan_pattern(back) : back != bits)
      bad.add(hex(bits), " -> ", f.decode(bits), " -> ", hex(back));
  }
  EXPECT_EQ(bad.count(), 0) << bad.examples();
}

// Every pair of adjacent finite values a < b, on both signs: the midpoint goes to the even
// pattern, the doubles right beside it to the nearer value, quarter points to the nearer value.
// Double rounding (through f32) fails the "beside the midpoint" probes.
TEST_P(Format16, EncodeRoundsToNearestEvenAtEveryMidpoint) {
  const Format& f = GetParam();
  Mismatches bad;
  auto expect = [&](double x, std::uint16_t want) {
    const std::uint16_t got = f.encode(x);
    if (got != want) bad.add("encode(", x, ") = ", hex(got), ", expected ", hex(want));
  };
  for (unsigned p = 0; p < f.max_finite_bits(); ++p) {
    const auto lo = static_cast<std::uint16_t>(p), hi = static_cast<std::uint16_t>(p + 1);
    const double a = f.decode(lo), b = f.decode(hi);
    const double mid = (a + b) / 2;  // exact: both have at most 11 significant bits
    const std::uint16_t even = (lo % 2 == 0) ? lo : hi;
    for (double s : {1.0, -1.0}) {
      const std::uint16_t sign = s < 0 ? f.sign_bit() : 0;
      expect(s * mid, static_cast<std::uint16_t>(sign | even));
      expect(s * std::nextafter(mid, 0.0), static_cast<std::uint16_t>(sign | lo));
      expect(s * std::nextafter(mid, kDoubleInf), static_cast<std::uint16_t>(sign | hi));
      expect(s * (a + (b - a) / 4), static_cast<std::uint16_t>(sign | lo));
      expect(s * (b - (b - a) / 4), static_cast<std::uint16_t>(sign | hi));
    }
  }
  EXPECT_EQ(bad.count(), 0) << bad.examples();
}

// Random doubles of every magnitude (subnormal range to overflow) against the bracketing encoder.
TEST_P(Format16, EncodeMatchesBracketingEncoderOnRandomDoubles) {
  const Format& f = GetParam();
  std::mt19937_64 gen(20240501);
  const int max_exp = f.bias() + 2, min_exp = 1 - f.bias() - f.mantissa - 3;
  std::uniform_int_distribution<int> exponent(min_exp, max_exp);
  std::uniform_real_distribution<double> significand(1.0, 2.0);
  Mismatches bad;
  for (int i = 0; i < 200000; ++i) {
    double x = std::ldexp(significand(gen), exponent(gen)) * (i % 2 ? -1 : 1);
    const std::uint16_t got = f.encode(x), want = bracketing_encode(f, x);
    if (got != want) bad.add("encode(", x, ") = ", hex(got), ", expected ", hex(want));
  }
  EXPECT_EQ(bad.count(), 0) << bad.examples();
}

TEST_P(Format16, OverflowsToInfinityFromMaxPlusHalfUlp) {
  const Format& f = GetParam();
  const double max = f.decode(f.max_finite_bits());
  const double threshold = max + std::ldexp(1.0, f.bias() - f.mantissa) / 2;
  const auto neg = [&](std::uint16_t b) { return static_cast<std::uint16_t>(b | f.sign_bit()); };
  EXPECT_EQ(f.encode(threshold), f.inf_bits());
  EXPECT_EQ(f.encode(-threshold), neg(f.inf_bits()));
  EXPECT_EQ(f.encode(std::nextafter(threshold, 0.0)), f.max_finite_bits());
  EXPECT_EQ(f.encode(-std::nextafter(threshold, 0.0)), neg(f.max_finite_bits()));
  EXPECT_EQ(f.encode(1e300), f.inf_bits());
  EXPECT_EQ(f.encode(kDoubleInf), f.inf_bits());
  EXPECT_EQ(f.encode(-kDoubleInf), neg(f.inf_bits()));
  EXPECT_TRUE(std::isnan(f.decode(f.encode(std::numeric_limits<double>::quiet_NaN()))));
}

TEST_P(Format16, SignedZerosAndUnderflowKeepTheSign) {
  const Format& f = GetParam();
  const double min_sub = std::ldexp(1.0, 1 - f.bias() - f.mantissa);
  EXPECT_EQ(f.encode(0.0), 0x0000);
  EXPECT_EQ(f.encode(-0.0), 0x8000);
  EXPECT_TRUE(std::signbit(f.decode(0x8000)));
  EXPECT_EQ(f.decode(0x8000), 0.0);
  EXPECT_EQ(f.encode(1e-300), 0x0000);
  EXPECT_EQ(f.encode(-1e-300), 0x8000);
  EXPECT_EQ(f.encode(-min_sub / 2), 0x8000);  // tie between -0 and -min_sub: even is zero
  EXPECT_EQ(f.encode(min_sub), 0x0001);
  EXPECT_EQ(f.encode(1.5 * min_sub), 0x0002);  // tie between 1 and 2 quanta: even is 2
  EXPECT_EQ(f.encode(2.5 * min_sub), 0x0002);
  EXPECT_EQ(f.decode(0x0001), min_sub);
  // The largest subnormal and the smallest normal are one quantum apart.
  const auto smallest_normal = static_cast<std::uint16_t>(1u << f.mantissa);
  EXPECT_EQ(f.decode(smallest_normal), std::ldexp(1.0, 1 - f.bias()));
  EXPECT_EQ(f.decode(smallest_normal) - f.decode(smallest_normal - 1), min_sub);
}

// ulp_of is the gap to the next value up and ulp_distance of neighbours is 1, for every pattern.
TEST_P(Format16, UlpArithmeticOnAllAdjacentPairs) {
  const Format& f = GetParam();
  Mismatches bad;
  for (unsigned p = 0; p < f.max_finite_bits(); ++p) {
    const double a = f.decode(static_cast<std::uint16_t>(p)), b = f.decode(static_cast<std::uint16_t>(p + 1));
    if (ulp_of(f.dtype, a) != b - a) bad.add("ulp_of(", a, ") = ", ulp_of(f.dtype, a), ", gap is ", b - a);
    for (double s : {1.0, -1.0}) {
      if (ulp_distance(f.dtype, s * a, s * b) != 1.0) bad.add("ulp_distance(", s * a, ", ", s * b, ") != 1");
      if (ulp_distance(f.dtype, s * b, s * a) != 1.0) bad.add("ulp_distance(", s * b, ", ", s * a, ") != 1");
      if (ulp_distance(f.dtype, s * a, s * a) != 0.0) bad.add("ulp_distance(", s * a, ", itself) != 0");
    }
  }
  EXPECT_EQ(bad.count(), 0) << bad.examples();
  const double min_sub = f.decode(0x0001);
  EXPECT_EQ(ulp_distance(f.dtype, -min_sub, min_sub), 2.0);
}

INSTANTIATE_TEST_SUITE_P(All, Format16, ::testing::Values(kF16, kBF16),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(UlpDistance, NanAndInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType t : float_dtypes()) {
    EXPECT_EQ(ulp_distance(t, nan, 1.0), kDoubleInf) << dtype_name(t);
    EXPECT_EQ(ulp_distance(t, 0.0, nan), kDoubleInf) << dtype_name(t);
    EXPECT_EQ(ulp_distance(t, kDoubleInf, 1.0), kDoubleInf) << dtype_name(t);
    EXPECT_EQ(ulp_distance(t, kDoubleInf, kDoubleInf), 0.0) << dtype_name(t);
    EXPECT_EQ(ulp_distance(t, 0.0, -0.0), 0.0) << dtype_name(t);
  }
}

TEST(UlpDistance, WideTypesAtNeighboursAndHalfSteps) {
  for (float x : {1.0f, -3.5f, 1e-40f, 6e37f, 0.0f}) {
    EXPECT_EQ(ulp_distance(DType::f32, x, std::nextafter(x, INFINITY)), 1.0) << x;
    EXPECT_EQ(ulp_of(DType::f32, x), static_cast<double>(std::nextafter(std::fabs(x), INFINITY)) - std::fabs(x)) << x;
  }
  for (double x : {1.0, -3.5, 1e-310, 1e300, 0.0}) {
    EXPECT_EQ(ulp_distance(DType::f64, x, std::nextafter(x, kDoubleInf)), 1.0) << x;
    EXPECT_EQ(ulp_of(DType::f64, x), std::nextafter(std::fabs(x), kDoubleInf) - std::fabs(x)) << x;
  }
  EXPECT_EQ(ulp_distance(DType::f32, 1.0, 1.0 + 0x1p-24), 0.5);
  EXPECT_EQ(ulp_distance(DType::f16, 1.0, 1.0 - 0x1p-11), 1.0);  // measured in the lower binade
  EXPECT_EQ(ulp_distance(DType::f16, 1.0, 1.25), 256.0);
  EXPECT_EQ(ulp_of(DType::f16, 65504.0), 32.0);
  EXPECT_EQ(ulp_of(DType::bf16, 1.0), 0x1p-7);
}

TEST(UnitRoundoff, IsHalfAnUlpAtOne) {
  EXPECT_EQ(unit_roundoff(DType::f16), 0x1p-11);
  EXPECT_EQ(unit_roundoff(DType::bf16), 0x1p-8);
  EXPECT_EQ(unit_roundoff(DType::f32), 0x1p-24);
  EXPECT_EQ(unit_roundoff(DType::f64), 0x1p-53);
  EXPECT_EQ(unit_roundoff(DType::i32), 0.0);
  for (DType t : float_dtypes()) EXPECT_EQ(unit_roundoff(t), ulp_of(t, 1.0) / 2) << dtype_name(t);
  EXPECT_EQ(unit_roundoff(DType::f32), std::numeric_limits<float>::epsilon() / 2);
  EXPECT_EQ(unit_roundoff(DType::f64), std::numeric_limits<double>::epsilon() / 2);
}

TEST(RoundTo, EachDtype) {
  EXPECT_EQ(round_to(DType::f16, 1.0 + 0x1p-11), 1.0);               // tie, even is 1
  EXPECT_EQ(round_to(DType::f16, 1.0 + 3 * 0x1p-11), 1.0 + 0x1p-9);  // tie, even is up
  EXPECT_EQ(round_to(DType::f16, 0.1), 0.0999755859375);
  EXPECT_EQ(round_to(DType::f16, 70000.0), kDoubleInf);
  EXPECT_EQ(round_to(DType::bf16, 1.0 + 0x1p-8), 1.0);
  EXPECT_EQ(round_to(DType::bf16, 1.0 + 0x1p-8 + 0x1p-30), 1.0 + 0x1p-7);
  EXPECT_EQ(round_to(DType::bf16, 0.1), 0.10009765625);
  EXPECT_EQ(round_to(DType::f32, 1.0 + 0x1p-24), 1.0);
  EXPECT_EQ(round_to(DType::f32, 1.0 + 3 * 0x1p-24), 1.0 + 0x1p-22);
  EXPECT_EQ(round_to(DType::f32, 0.1), static_cast<double>(0.1f));
  EXPECT_EQ(round_to(DType::f32, 1e39), kDoubleInf);
  EXPECT_EQ(round_to(DType::f64, 0.1), 0.1);
  EXPECT_EQ(round_to(DType::i32, 2.5), 2.0);
  EXPECT_EQ(round_to(DType::i32, 3.5), 4.0);
  EXPECT_EQ(round_to(DType::i32, -2.7), -3.0);
  for (DType t : float_dtypes()) EXPECT_TRUE(std::signbit(round_to(t, -0.0))) << dtype_name(t);
}

TEST(DtypeTables, NamesSizesAndLayout) {
  for (DType t : {DType::f16, DType::bf16, DType::f32, DType::f64, DType::i32}) {
    ASSERT_TRUE(parse_dtype(dtype_name(t)).has_value()) << dtype_name(t);
    EXPECT_EQ(*parse_dtype(dtype_name(t)), t);
  }
  EXPECT_FALSE(parse_dtype("f8").has_value());
  EXPECT_FALSE(parse_dtype("F32").has_value());
  EXPECT_EQ(float_dtypes(), (std::vector<DType>{DType::f16, DType::bf16, DType::f32, DType::f64}));
  EXPECT_EQ(dtype_size(DType::f16), 2u);
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(dtype_size(DType::f64), 8u);
  EXPECT_EQ(dtype_size(DType::i32), 4u);
  EXPECT_FALSE(is_float(DType::i32));
  EXPECT_EQ(mantissa_bits(DType::f32), std::numeric_limits<float>::digits - 1);
  EXPECT_EQ(mantissa_bits(DType::f64), std::numeric_limits<double>::digits - 1);
  EXPECT_EQ(min_normal_exponent(DType::f32), std::numeric_limits<float>::min_exponent - 1);
  EXPECT_EQ(min_normal_exponent(DType::f64), std::numeric_limits<double>::min_exponent - 1);
  EXPECT_EQ(min_normal_exponent(DType::bf16), min_normal_exponent(DType::f32));
  EXPECT_EQ(f16_to_float(f16_from_float(0.5f)), 0.5f);
  EXPECT_EQ(bf16_to_float(bf16_from_float(-3.0f)), -3.0f);
}

// The largest finite value from each format's parameters, against the formats' own maxima.
TEST(DType, LargestFiniteIsEachFormatsMaximum) {
  EXPECT_EQ(largest_finite(DType::f16), 65504.0);
  EXPECT_EQ(largest_finite(DType::bf16), bf16_to_double(0x7F7F));
  EXPECT_EQ(largest_finite(DType::f32), static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(largest_finite(DType::f64), std::numeric_limits<double>::max());
  EXPECT_TRUE(std::isinf(round_to(DType::f16, 65520.0)));  // past it by half an ULP: infinity
}

}  // namespace
}  // namespace gp
