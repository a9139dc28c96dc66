// harness/compare: verdicts, margins, sensitivity and the worst element of compare_to_reference
// on hand-made tensors with chosen error bounds, the metrics on a worked example, and
// mistrust_reason for references that cannot tell a right kernel from a wrong one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "harness/check/compare.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A reference whose every element carries the library-budget error `spec` (counted once by the
// tolerance model, times 1 + kReferenceShare).
ref::RefTensor reference(const std::vector<double>& v, long double spec = 0x1p-10L) {
  ref::RefTensor r;
  r.shape = Shape{static_cast<std::int64_t>(v.size())};
  r.v.assign(v.begin(), v.end());
  r.err.assign(v.size(), ref::ErrorBound{spec, 0, 0, spec});
  return r;
}

HostTensor host_tensor(DType t, const std::vector<double>& v) {
  HostTensor h(t, Shape{static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) h.set(static_cast<std::int64_t>(i), v[i]);
  return h;
}

const Tolerance kPlain;  // f32 storage, no 16-bit store, no flush, nothing loosened
const double kBound = kPlain.bound(ref::ErrorBound{0x1p-10L, 0, 0, 0x1p-10L}, 1.0);

TEST(Tolerance, BoundCombinesTheChannels) {
  // spec once, the other single roundings kFormulation times, accumulations at the smaller of
  // kFormulation x the worst case and kLambda x the probabilistic scale; the verified reference
  // share on top.
  const ref::ErrorBound e{3.0L, 10.0L, 1.0L, 1.0L};  // det 3 of which spec 1: 2 of single roundings
  const double want = (1 + kFormulation * 2 + std::min(kFormulation * 10, kLambda * 1)) * (1 + kReferenceShare);
  EXPECT_DOUBLE_EQ(kPlain.bound(e, 1.0), want);
  ref::ErrorBound few = e;
  few.acc = 0.5L;  // a short sum: its worst case is the smaller
  EXPECT_DOUBLE_EQ(kPlain.bound(few, 1.0), (1 + kFormulation * 2 + kFormulation * 0.5) * (1 + kReferenceShare));
}

// A reference beyond double's range (long double holds exp(709.5) * 2) must come back as the
// infinity it rounds to; a finite answer there is wrong.
TEST(Compare, ReferenceBeyondDoubleRangeWantsInfinity) {
  ref::RefTensor r = reference({1.0}, 3e300L);
  r.v[0] = 3e308L;
  EXPECT_EQ(compare_to_reference(r, host_tensor(DType::f64, {kInfinity}), kPlain, DType::f64).verdict, Verdict::pass);
  EXPECT_EQ(compare_to_reference(r, host_tensor(DType::f64, {1e308}), kPlain, DType::f64).verdict, Verdict::fail);
  EXPECT_EQ(compare_to_reference(r, host_tensor(DType::f64, {-kInfinity}), kPlain, DType::f64).verdict, Verdict::fail);
}

// Beyond the range where the formulation's intermediates overflow too (an infinite bound): the
// exact infinity passes, a NaN or the other infinity from those intermediates' infinities is not
// judged (a layer_norm gradient with a weight near f64's largest value gave -inf on PoCL and
// NVIDIA's Vulkan), and a finite value is still wrong.
TEST(Compare, BeyondTheRangeWithOverflowingIntermediatesOnlyInfinitiesAreUnjudged) {
  ref::RefTensor r = reference({1.0});
  r.v[0] = 3e308L;
  r.err[0].det = std::numeric_limits<long double>::infinity();
  EXPECT_EQ(compare_to_reference(r, host_tensor(DType::f64, {kInfinity}), kPlain, DType::f64).verdict, Verdict::pass);
  for (const double g : {-kInfinity, std::numeric_limits<double>::quiet_NaN()})
    EXPECT_EQ(compare_to_reference(r, host_tensor(DType::f64, {g}), kPlain, DType::f64).verdict, Verdict::mistrusted)
        << g;
  EXPECT_EQ(compare_to_reference(r, host_tensor(DType::f64, {1e308}), kPlain, DType::f64).verdict, Verdict::fail);
}

// An element whose bound is infinite (an intermediate past the arithmetic's range) or NaN (that
// infinity times a zero derivative) is not judged, whatever the kernel gave there: the check is
// MISTRUSTED, naming how many and the first; a failure elsewhere still fails.
TEST(Compare, ElementsWithoutAFiniteBoundAreNotJudged) {
  ref::RefTensor r = reference({1, 2, 3, 4});
  r.err[1].det = std::numeric_limits<long double>::infinity();
  r.err[3].det = std::numeric_limits<long double>::quiet_NaN();
  const Comparison c = compare_to_reference(r, host_tensor(DType::f64, {1, -kInfinity, 3, 0}), kPlain, DType::f64);
  EXPECT_EQ(c.verdict, Verdict::mistrusted);
  EXPECT_THAT(c.reason, HasSubstr("2 element(s) outside the error model's range"));
  EXPECT_THAT(c.reason, HasSubstr("first at index 1"));
  EXPECT_EQ(compare_to_reference(r, host_tensor(DType::f64, {1, 2, 3.5, 4}), kPlain, DType::f64).verdict,
            Verdict::fail);
}

TEST(Compare, ExactMatchPassesWithZeroMargin) {
  const std::vector<double> v = {1.0, -2.5, 0.0, 0x1p-9, 0x1.8p20};  // representable in f32
  for (DType t : {DType::f32, DType::f64}) {
    const Comparison c = compare_to_reference(reference(v), host_tensor(t, v), kPlain, t);
    EXPECT_EQ(c.verdict, Verdict::pass) << c.reason;
    EXPECT_TRUE(c.reason.empty());
    EXPECT_EQ(c.metrics.margin, 0.0);
    EXPECT_EQ(c.metrics.max_abs, 0.0);
    EXPECT_EQ(c.metrics.max_ulp, 0.0);
    EXPECT_EQ(c.metrics.nmse, 0.0);
    EXPECT_EQ(c.metrics.nonfinite, 0);
    EXPECT_EQ(c.metrics.elements, 5);
  }
}

TEST(Compare, ErrorOfOneAndAHalfBoundsFailsAtTheWorstIndex) {
  const double b = kBound;
  const std::vector<double> want = {1.0, 2.0, -3.0, 4.0, 5.0};
  const std::vector<double> got = {1.0 + 0.5 * b, 2.0 - b, -3.0 - 1.5 * b, 4.0 + 1.25 * b, 5.0};
  const Comparison c = compare_to_reference(reference(want), host_tensor(DType::f64, got), kPlain, DType::f64);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_NEAR(c.metrics.margin, 1.5, 1e-12);
  EXPECT_DOUBLE_EQ(c.metrics.bound, b);
  EXPECT_EQ(c.metrics.worst.index, 2);
  EXPECT_EQ(c.metrics.worst.expected, -3.0);
  EXPECT_DOUBLE_EQ(c.metrics.worst.bound, b);
  EXPECT_NEAR(c.metrics.max_abs, 1.5 * b, 1e-15);
  EXPECT_THAT(c.reason, HasSubstr("index 2"));
  EXPECT_THAT(c.reason, HasSubstr("exceeds bound"));
}

// An exact result expected (bound 0): the reason gives the error, not margin x bound (inf x 0,
// which printed as "error -nan").
TEST(Compare, AWrongExactResultNamesItsError) {
  Tolerance exact;
  exact.exact = true;
  const Comparison c =
      compare_to_reference(reference({1.0, 2.0}), host_tensor(DType::f32, {1.0, 2.5}), exact, DType::f32);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_THAT(c.reason, HasSubstr("error 0.5 exceeds bound 0 at index 1"));
}

// A failure a few ULP wide prints every digit of the dtype and the distance in its ULPs: six
// digits read "expected 0.295082, got 0.295082".
TEST(Compare, AFailureOfTwoUlpShowsTheDigitsThatDiffer) {
  const float expected = 0.295081966F;
  const float got = std::nextafter(std::nextafter(expected, 1.0F), 1.0F);
  Tolerance exact;
  exact.exact = true;
  const Comparison c = compare_to_reference(reference({expected}), host_tensor(DType::f32, {got}), exact, DType::f32);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_THAT(c.reason, HasSubstr("(expected 0.2950819730758667, got 0.295082033, 2 ULP of f32 from the expected "
                                  "value rounded to it)"));
}

// repro's table of worst elements: ordered by the absolute error, the failing element of a small
// result (an error 1000 times its bound, but 10^-3 wide) was left out by larger ones within theirs.
TEST(WorstElements, OrderedByErrorOverBoundWithTheChecksWorstKept) {
  ref::RefTensor want;
  want.shape = Shape{4};
  want.v = {100, 100, 100, 1};
  for (const long double b : {1.0L, 1.0L, 1.0L, 1e-6L}) want.err.push_back(ref::ErrorBound{b, 0, 0, 0});
  const HostTensor got = host_tensor(DType::f64, {100.5, 100.6, 100.7, 1.001});
  EXPECT_THAT(worst_elements(want, got, 2, -1), ::testing::ElementsAre(3, 2));
  EXPECT_THAT(worst_elements(want, got, 1, 0), ::testing::ElementsAre(0));
  EXPECT_THAT(worst_elements(want, got, 9, 3), ::testing::ElementsAre(3, 2, 1, 0));
}

TEST(Compare, ErrorOfExactlyTheBoundPasses) {
  const Comparison c =
      compare_to_reference(reference({1.0, 2.0}), host_tensor(DType::f64, {1.0 - kBound, 2.0}), kPlain, DType::f64);
  EXPECT_EQ(c.verdict, Verdict::pass) << c.reason;
  EXPECT_NEAR(c.metrics.margin, 1.0, 1e-12);
  EXPECT_EQ(c.metrics.worst.index, 0);
}

// The margin is the error beyond the rounding to the dtype: a correctly rounded result has
// margin 0 even under a bound of half an ULP, and margin <= 1 exactly when error <= bound.
TEST(Compare, CorrectlyRoundedResultHasMarginZeroUnderASharpBound) {
  const long double exact = 1.0L + 0x1.7p-25L;              // 0.36 f32 ULPs above 1
  const double half_ulp = 0x1p-24 / (1 + kReferenceShare);  // the bound becomes half an ULP of 1
  ref::RefTensor r = reference({0.0}, half_ulp);
  r.v[0] = exact;
  const Comparison cr = compare_to_reference(r, host_tensor(DType::f32, {1.0}), kPlain, DType::f32);
  EXPECT_EQ(cr.verdict, Verdict::pass);
  EXPECT_EQ(cr.metrics.margin, 0.0);
  const Comparison other = compare_to_reference(r, host_tensor(DType::f32, {1.0 + 0x1p-23}), kPlain, DType::f32);
  EXPECT_EQ(other.verdict, Verdict::fail);  // 0.64 ULPs away: beyond half an ULP
  EXPECT_GT(other.metrics.margin, 1.0);
}

// The smallest uniform relative perturbation that fails the check, in ULPs of the element that
// fails first: the slack bound - |error| in ULPs of the result, minimised.
TEST(Compare, SensitivityIsTheSmallestSlackInUlps) {
  ref::RefTensor r = reference({1.0, 3.0});
  r.err[0] = {4 * 0x1p-23L, 0, 0, 4 * 0x1p-23L};  // 4 f32 ULPs of 1 (spec: the device's budget)
  r.err[1] = {8 * 0x1p-23L, 0, 0, 0};             // single roundings: 8 ULPs of 3 after kFormulation
  const Comparison c = compare_to_reference(r, host_tensor(DType::f32, {1.0 + 0x1p-23, 3.0}), kPlain, DType::f32);
  ASSERT_EQ(c.verdict, Verdict::pass) << c.reason;
  // element 0: (4.04 - 1) ULPs of slack; element 1: 8.08 ULPs
  EXPECT_NEAR(c.metrics.sensitivity_ulp, 4 * (1 + kReferenceShare) - 1, 1e-9);
  EXPECT_NEAR(c.metrics.budget_ulp, 4.0, 1e-9);
  // A tensor of zeros cannot be perturbed relatively: no sensitivity.
  EXPECT_TRUE(std::isnan(compare_to_reference(reference({0.0}), host_tensor(DType::f32, {0.0}), kPlain, DType::f32)
                             .metrics.sensitivity_ulp));
}

TEST(Compare, NanOrInfWhereReferenceIsFiniteIsCountedAsNonfinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // A huge error elsewhere must not hide the NaN: non-finite values decide the verdict.
  const Comparison c = compare_to_reference(reference({1.0, 2.0, 3.0, 4.0}),
                                            host_tensor(DType::f32, {1.0, nan, 30.0, kInfinity}), kPlain, DType::f32);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_EQ(c.metrics.nonfinite, 2);
  EXPECT_EQ(c.metrics.margin, kInfinity);
  EXPECT_EQ(c.metrics.worst.index, 1);
  EXPECT_THAT(c.reason, HasSubstr("non-finite"));
  EXPECT_THAT(c.reason, HasSubstr("index 1"));
}

TEST(Compare, ReferenceBeyondTheDtypeRangeExpectsInfinity) {
  // 1e39 rounds to +inf in f32: a kernel returning +inf is right, one returning FLT_MAX is not.
  const auto big = reference({1e39, 1.0});
  EXPECT_EQ(compare_to_reference(big, host_tensor(DType::f32, {kInfinity, 1.0}), kPlain, DType::f32).verdict,
            Verdict::pass);
  const Comparison c = compare_to_reference(big, host_tensor(DType::f32, {3.0e38, 1.0}), kPlain, DType::f32);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_EQ(c.metrics.nonfinite, 1);
  EXPECT_EQ(compare_to_reference(big, host_tensor(DType::f32, {-kInfinity, 1.0}), kPlain, DType::f32).verdict,
            Verdict::fail);
}

// Worked example in f32, every error a whole number of f32 ULPs:
//   expected  1        -2              4             0
//   got       1+2^-23  -2-2*2^-22      4-2^-22       0
//   |err|     2^-23    2^-21           2^-22         0
//   ulp       1        2               1 (in [2,4))  0
TEST(Compare, MetricsOnAHandExample) {
  const Comparison c =
      compare_to_reference(reference({1.0, -2.0, 4.0, 0.0}, 1.0L),
                           host_tensor(DType::f32, {1.0 + 0x1p-23, -2.0 - 0x1p-21, 4.0 - 0x1p-22, 0.0}), kPlain,
                           DType::f32, [](std::int64_t i) { return std::vector<double>{i * 10.0}; });
  EXPECT_EQ(c.verdict, Verdict::pass) << c.reason;
  EXPECT_EQ(c.metrics.elements, 4);
  EXPECT_EQ(c.metrics.max_abs, 0x1p-21);
  EXPECT_EQ(c.metrics.max_rel, 0x1p-22);  // 2^-21 / 2 beats 2^-23 / 1 and 2^-22 / 4
  EXPECT_EQ(c.metrics.max_ulp, 2.0);
  EXPECT_DOUBLE_EQ(c.metrics.nmse, (0x1p-46 + 0x1p-42 + 0x1p-44) / 21.0);
  EXPECT_DOUBLE_EQ(c.metrics.margin, 0x1p-21 / (1 + kReferenceShare));  // the values are representable
  EXPECT_EQ(c.metrics.worst.index, 1);
  EXPECT_EQ(c.metrics.worst.inputs, std::vector<double>{10.0});
}

TEST(Compare, SixteenBitStoreAddsHalfAnUlpOfTheStorageType) {
  Tolerance t;
  t.storage = DType::f16;
  t.rounds_to_storage = true;
  EXPECT_DOUBLE_EQ(t.bound(ref::ErrorBound{}, 1.0), 0x1p-11);  // half an f16 ULP at 1
  t.flushes = true;  // a device that may flush: a subnormal f16 result may become 0
  EXPECT_DOUBLE_EQ(t.bound(ref::ErrorBound{}, 0x1p-20), 0x1p-20 + 0x1p-25);
}

TEST(Compare, SizeMismatchFails) {
  const Comparison c =
      compare_to_reference(reference({1.0, 2.0, 3.0}), host_tensor(DType::f32, {1.0, 2.0}), kPlain, DType::f32);
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_THAT(c.reason, HasSubstr("size mismatch"));
}

TEST(Compare, ExactToleranceFailsOnAnyDifference) {
  Tolerance t;
  t.exact = true;
  EXPECT_EQ(compare_to_reference(reference({1.0, 2.0}), host_tensor(DType::f64, {1.0, 2.0}), t, DType::f64).verdict,
            Verdict::pass);
  const Comparison c = compare_to_reference(reference({1.0, 2.0}),
                                            host_tensor(DType::f64, {1.0, std::nextafter(2.0, 3.0)}), t, DType::f64);
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
