// ref::exact_product decides from the operands' bits what the product's own bits say
// (product_is_exact and representable_in on p, which a Tracked dot product used to read per term):
// the same answer and the same odd part for every pair, normal, subnormal, near the ends of long
// double's range, zero, infinite or NaN, in every compute context.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/math_profile.hpp"
#include "reference/tracked.hpp"

namespace gp {
namespace {

std::vector<long double> operands() {
  std::vector<long double> v = {0.0L,
                                -0.0L,
                                1.0L,
                                -3.0L,
                                0.1L,
                                std::ldexp(1.0L, 16383),
                                std::ldexp(1.5L, 8000),
                                std::ldexp(1.0L, -16382),
                                std::ldexp(1.0L, -16400),  // subnormal
                                std::ldexp(3.0L, -9000),
                                std::ldexp(1.0L, -14),
                                std::ldexp(1.0L, -20),  // below f16's normal range
                                std::ldexp(1.0L, -126),
                                std::ldexp(1.0L, -140),  // below f32's normal range
                                std::numeric_limits<long double>::infinity(),
                                std::numeric_limits<long double>::quiet_NaN()};
  std::mt19937_64 rng(7);
  for (int bits : {8, 11, 24, 32, 33, 53, 64})
    for (int k = 0; k < 12; ++k) {
      // An odd integer of `bits` bits at a random scale: products of 8 to 128 significant bits.
      const std::uint64_t odd = (rng() >> (64 - bits)) | (std::uint64_t{1} << (bits - 1)) | 1;
      const int scale = static_cast<int>(rng() % 200) - 120;
      v.push_back((k % 2 ? -1 : 1) * std::ldexp(static_cast<long double>(odd), scale - bits));
    }
  return v;
}

TEST(ExactProduct, DecidesFromTheOperandsWhatTheProductsBitsSay) {
  const std::vector<long double> v = operands();
  for (DType dt : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
    for (const MathProfile* profile : {static_cast<const MathProfile*>(nullptr), &correctly_rounded_profile()}) {
      const ref::TrackingScope scope(ref::context_for(dt, profile, false));
      const ref::TrackingContext& ctx = ref::tracking_context();
      int representable = 0;
      for (long double a : v)
        for (long double b : v) {
          const long double p = a * b;
          const bool want = ref::product_is_exact(a, b, p) && ref::representable_in(p, ctx.digits, ctx.min_exponent);
          const ref::ExactProduct got = ref::exact_product(a, b, p);
          ASSERT_EQ(got.representable, want) << dtype_name(dt) << " " << a << " * " << b;
          if (!want || p == 0) continue;
          ++representable;
          EXPECT_EQ(got.odd.odd, ref::detail::odd_part(p).odd) << a << " * " << b;
          EXPECT_EQ(got.odd.e, ref::detail::odd_part(p).e) << a << " * " << b;
        }
      EXPECT_GT(representable, 100) << dtype_name(dt);
    }
  }
}

}  // namespace
}  // namespace gp
