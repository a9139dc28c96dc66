// harness/compare: verdicts, margins and the worst element of compare_to_reference on hand-made
// tensors whose errors are chosen as exact powers of two, the metrics on a worked example, and
// mistrust_reason for references that cannot tell a right kernel from a wrong one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "harness/compare.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();

ref::RefTensor reference(const std::vector<double>& v, double scale = 1.0) {
  ref::RefTensor r;
  r.shape = Shape{static_cast<std::int64_t>(v.size())};
  r.v.assign(v.begin(), v.end());
  r.scale.assign(v.size(), scale);
  return r;
}

HostTensor host(DType t, const std::vector<double>& v) {
  HostTensor h(t, Shape{static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) h.set(static_cast<std::int64_t>(i), v[i]);
  return h;
}

// bound_i = K * u_c * scale_i, nothing else: with K * u_c = 2^-10 and scale 1, every bound is
// 2^-10 and errors written in multiples of it are exact in f64.
Tolerance relative_only() {
  Tolerance t;
  t.k_compute = 4;
  t.u_compute = 0x1p-12;
  return t;
}

// A reference beyond double's range (long double holds exp(709.5) * 2) must come back as the
// infinity it rounds to; a finite answer there is wrong.
TEST(Compare, ReferenceBeyondDoubleRangeWantsInfinity) {
  ref::RefTensor r = reference({1.0});
  r.v[0] = 3e308L;
  r.scale[0] = 3e308L;
  Tolerance t = relative_only();
  EXPECT_EQ(compare_to_reference(r, host(DType::f64, {kInf}), t, DType::f64, 1.0).verdict, Verdict::pass);
  const Comparison finite = compare_to_reference(r, host(DType::f64, {1e308}), t, DType::f64, 1.0);
  EXPECT_EQ(finite.verdict, Verdict::fail);
  EXPECT_EQ(compare_to_reference(r, host(DType::f64, {-kInf}), t, DType::f64, 1.0).verdict, Verdict::fail);
}

TEST(Compare, ExactMatchPassesWithZeroMargin) {
  const std::vector<double> v = {1.0, -2.5, 0.0, 0x1p-9, 0x1.8p20};  // representable in f32
  for (DType t : {DType::f32, DType::f64}) {
    const Comparison c = compare_to_reference(reference(v), host(t, v), relative_only(), t, 1.0);
    EXPECT_EQ(c.verdict, Verdict::pass) << c.reason;
    EXPECT_TRUE(c.reason.empty());
    EXPECT_EQ(c.metrics.margin, 0.0);
    EXPECT_EQ(c.metrics.max_abs, 0.0);
    EXPECT_EQ(c.metrics.max_rel, 0.0);
    EXPECT_EQ(c.metrics.max_ulp, 0.0);
    EXPECT_EQ(c.metrics.nmse, 0.0);
    EXPECT_EQ(c.metrics.nonfinite, 0);
    EXPECT_EQ(c.metrics.elements, 5);
  }
}

TEST(Compare, ErrorOfOneAndAHalfBoundsFailsAtTheWorstIndex) {
  const double b = 0x1p-10;
  const std::vector<double> want = {1.0, 2.0, -3.0, 4.0, 5.0};
  const std::vector<double> got = {1.0 + 0.5 * b, 2.0 - b, -3.0 - 1.5 * b, 4.0 + 1.25 * b, 5.0};
  const Comparison c = compare_to_reference(reference(want), host(DType::f64, got), relative_only(), DType::f64, 1.0);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_DOUBLE_EQ(c.metrics.margin, 1.5);
  EXPECT_DOUBLE_EQ(c.metrics.bound, b);
  EXPECT_EQ(c.metrics.worst.index, 2);
  EXPECT_EQ(c.metrics.worst.expected, -3.0);
  EXPECT_EQ(c.metrics.worst.got, -3.0 - 1.5 * b);
  EXPECT_DOUBLE_EQ(c.metrics.worst.bound, b);
  EXPECT_DOUBLE_EQ(c.metrics.max_abs, 1.5 * b);
  EXPECT_THAT(c.reason, HasSubstr("index 2"));
  EXPECT_THAT(c.reason, HasSubstr("exceeds bound"));
}

TEST(Compare, ErrorOfExactlyTheBoundPasses) {
  const double b = 0x1p-10;
  const Comparison c =
      compare_to_reference(reference({1.0, 2.0}), host(DType::f64, {1.0 - b, 2.0}), relative_only(), DType::f64, 1.0);
  EXPECT_EQ(c.verdict, Verdict::pass) << c.reason;
  EXPECT_DOUBLE_EQ(c.metrics.margin, 1.0);
  EXPECT_EQ(c.metrics.worst.index, 0);
}

TEST(Compare, WeightScalesOnlyTheAbsoluteAllowance) {
  Tolerance t;
  t.abs_allowance = 0x1p-8;
  const Comparison one = compare_to_reference(reference({1.0}), host(DType::f64, {1.0 + 0x1p-9}), t, DType::f64, 1.0);
  const Comparison quarter =
      compare_to_reference(reference({1.0}), host(DType::f64, {1.0 + 0x1p-9}), t, DType::f64, 0.25);
  EXPECT_DOUBLE_EQ(one.metrics.margin, 0.5);
  EXPECT_EQ(one.verdict, Verdict::pass);
  EXPECT_DOUBLE_EQ(quarter.metrics.margin, 2.0);
  EXPECT_EQ(quarter.verdict, Verdict::fail);
}

TEST(Compare, NanOrInfWhereReferenceIsFiniteIsCountedAsNonfinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // A huge error elsewhere must not hide the NaN: non-finite values decide the verdict.
  const Comparison c = compare_to_reference(reference({1.0, 2.0, 3.0, 4.0}), host(DType::f32, {1.0, nan, 30.0, kInf}),
                                            relative_only(), DType::f32, 1.0);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_EQ(c.metrics.nonfinite, 2);
  EXPECT_EQ(c.metrics.margin, kInf);
  EXPECT_EQ(c.metrics.worst.index, 1);
  EXPECT_THAT(c.reason, HasSubstr("non-finite"));
  EXPECT_THAT(c.reason, HasSubstr("index 1"));
}

TEST(Compare, ReferenceBeyondTheDtypeRangeExpectsInfinity) {
  // 1e39 rounds to +inf in f32: a kernel returning +inf is right, one returning FLT_MAX is not.
  const auto big = reference({1e39, 1.0});
  EXPECT_EQ(compare_to_reference(big, host(DType::f32, {kInf, 1.0}), relative_only(), DType::f32, 1.0).verdict,
            Verdict::pass);
  const Comparison c = compare_to_reference(big, host(DType::f32, {3.0e38, 1.0}), relative_only(), DType::f32, 1.0);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_EQ(c.metrics.nonfinite, 1);
  EXPECT_EQ(compare_to_reference(big, host(DType::f32, {-kInf, 1.0}), relative_only(), DType::f32, 1.0).verdict,
            Verdict::fail);
}

// Worked example in f32, every error a whole number of f32 ULPs:
//   expected  1        -2              4             0
//   got       1+2^-23  -2-2*2^-22      4-2^-22       0
//   |err|     2^-23    2^-21           2^-22         0
//   ulp       1        2               1 (in [2,4))  0
TEST(Compare, MetricsOnAHandExample) {
  Tolerance t;
  t.abs_allowance = 1.0;  // generous: this test is about the metrics
  const Comparison c = compare_to_reference(
      reference({1.0, -2.0, 4.0, 0.0}), host(DType::f32, {1.0 + 0x1p-23, -2.0 - 0x1p-21, 4.0 - 0x1p-22, 0.0}), t,
      DType::f32, 1.0, [](std::int64_t i) { return std::vector<double>{i * 10.0}; });
  EXPECT_EQ(c.verdict, Verdict::pass) << c.reason;
  EXPECT_EQ(c.metrics.elements, 4);
  EXPECT_EQ(c.metrics.max_abs, 0x1p-21);
  EXPECT_EQ(c.metrics.max_rel, 0x1p-22);  // 2^-21 / 2 beats 2^-23 / 1 and 2^-22 / 4
  EXPECT_EQ(c.metrics.max_ulp, 2.0);
  EXPECT_DOUBLE_EQ(c.metrics.nmse, (0x1p-46 + 0x1p-42 + 0x1p-44) / 21.0);
  EXPECT_DOUBLE_EQ(c.metrics.margin, 0x1p-21);
  EXPECT_EQ(c.metrics.worst.index, 1);
  EXPECT_EQ(c.metrics.worst.inputs, std::vector<double>{10.0});
}

TEST(Compare, SizeMismatchFails) {
  const Comparison c =
      compare_to_reference(reference({1.0, 2.0, 3.0}), host(DType::f32, {1.0, 2.0}), relative_only(), DType::f32, 1.0);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_THAT(c.reason, HasSubstr("size mismatch"));
}

TEST(Compare, ExactToleranceFailsOnAnyDifference) {
  Tolerance t;
  t.exact = true;
  EXPECT_EQ(compare_to_reference(reference({1.0, 2.0}), host(DType::f64, {1.0, 2.0}), t, DType::f64, 1.0).verdict,
            Verdict::pass);
  const Comparison c = compare_to_reference(reference({1.0, 2.0}), host(DType::f64, {1.0, std::nextafter(2.0, 3.0)}), t,
                                            DType::f64, 1.0);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_EQ(c.metrics.worst.index, 1);
}

TEST(Mistrust, AllZeroReferenceIsMistrustedEvenWhenSparseIsExpected) {
  const auto zeros = reference(std::vector<double>(40, 0.0));
  EXPECT_THAT(mistrust_reason(zeros, false), HasSubstr("all zeros"));
  EXPECT_THAT(mistrust_reason(zeros, true), HasSubstr("all zeros"));
  EXPECT_THAT(mistrust_reason(reference({0.0}), false), HasSubstr("all zeros"));
  EXPECT_FALSE(mistrust_reason(reference({}), false).empty());
}

TEST(Mistrust, MostlyZeroReferenceUnlessSparseByConstruction) {
  std::vector<double> v(20, 0.0);
  v[3] = 1.0;  // 19 of 20 zero: 95%
  EXPECT_THAT(mistrust_reason(reference(v), false), HasSubstr("95%"));
  EXPECT_EQ(mistrust_reason(reference(v), true), "");
  v[4] = v[5] = 1.0;  // 17 of 20: 85%, meaningful
  EXPECT_EQ(mistrust_reason(reference(v), false), "");
  // Small tensors are judged only by "all zero": one nonzero of eight is still a check.
  std::vector<double> small(8, 0.0);
  small[0] = 2.0;
  EXPECT_EQ(mistrust_reason(reference(small), false), "");
  EXPECT_EQ(mistrust_reason(reference({1.0, -2.0, 3.0}), false), "");
}

}  // namespace
}  // namespace gp
