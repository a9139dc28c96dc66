// The error model's arithmetic (reference/tracked.hpp) and its two promises on whole ops:
//   * sound: a float kernel of a stable formulation (glibc's float functions, as the CPU backend
//     calls them) stays within the bound on every element of 64x128 inputs;
//   * sharp: the cancelling formulations the bounds are meant to catch (1 + erf in gelu's tail,
//     exp(x) - 1 for expm1, a one-pass variance of rows at 1000 + N(0, 0.01), 0.5 x (1 + tanh u)
//     for gelu(approx=tanh), log(sigmoid(x)) in bce) exceed it.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backends/registry.hpp"
#include "harness/check/tolerance.hpp"
#include "reference/reference.hpp"
#include "reference/sum.hpp"

namespace gp::ref {
namespace {

TrackingContext f32_context() { return context_for(DType::f32, &correctly_rounded_profile(), false); }

TEST(Tracked, ExactOperationsCarryNoError) {
  TrackingScope scope(f32_context());
  const Tracked a(1.5), b(0.25);
  EXPECT_TRUE((a + b).exact());
  EXPECT_TRUE((a * b).exact());
  EXPECT_TRUE((a / b).exact());
  // Rounds: u |1/3| in the standard model (u = 2^-24), not the exact half ULP of 1/3 (2^-26): a
  // kernel's intermediate is another value of that size.
  const Tracked third = Tracked(1) / Tracked(3);
  EXPECT_EQ(third.e.det, std::ldexp(1.0L, -24) * third.v);
  // Exact as a quotient, but not as a * (1 / 7): only powers of two divide exactly for every kernel.
  EXPECT_GT((Tracked(7 * 0.75) / Tracked(7)).e.det, 0);
  EXPECT_EQ((Tracked(0.75) / Tracked(4)).e.det, 0);
  EXPECT_EQ(third.e.spec, 0);  // a correctly rounded division is a rounding, not a device budget
  EXPECT_EQ(Tracked(0.1L).e.det, std::fabs(0.1L - static_cast<long double>(0.1f)));  // a literal rounds
}

// A result past the compute arithmetic's range is infinite in a kernel: its bound, and that of
// everything computed from it, is infinite, whether an arithmetic result (x * x in reciprocal's
// derivative at |x| = 2^64 in f32) or a library call's (exp(89) in f32), while 2^63 squared, exp(88)
// and the same values in f64 keep finite bounds.
TEST(Tracked, ResultsPastTheComputeRangeHaveNoFiniteBound) {
  const long double inf = std::numeric_limits<long double>::infinity();
  {
    TrackingScope scope(f32_context());
    EXPECT_EQ(rounding_unit().overflow, std::ldexp(2.0L - 0x1p-24L, 127));
    const Tracked big(0x1p64L), fine(0x1p63L);
    EXPECT_EQ((Tracked(-1) / (big * big)).e.det, inf);
    EXPECT_LT((Tracked(-1) / (fine * fine)).e.det, inf);
    EXPECT_EQ(exp(Tracked(89)).e.det, inf);
    EXPECT_LT(exp(Tracked(88)).e.det, inf);
  }
  TrackingScope scope(context_for(DType::f64, &correctly_rounded_profile(), false));
  const Tracked big(0x1p64L);
  EXPECT_LT((Tracked(-1) / (big * big)).e.det, inf);
  EXPECT_LT(exp(Tracked(89)).e.det, inf);
}

// A sum's terms of one sign that reach f32's overflow together overflow in some kernel's order
// (a lane of them), even where the sequential partial sums alternate and stay small; terms that
// cancel pairwise without such a subset keep a finite bound.
TEST(Tracked, SumsWhoseTermsOfOneSignOverflowHaveNoFiniteBound) {
  TrackingScope scope(f32_context());
  const long double inf = std::numeric_limits<long double>::infinity();
  auto sum_of = [](std::initializer_list<long double> terms) {
    Sum<Tracked> s;
    for (long double t : terms) s.add(Tracked(t));
    return s.result();
  };
  const Tracked overflowing = sum_of({2e38L, -2e38L, 2e38L, -2e38L});  // sequential: 2e38, 0, 2e38, 0
  EXPECT_EQ(overflowing.e.acc, inf);
  EXPECT_EQ(overflowing.e.prob, inf);
  const Tracked cancelling = sum_of({2e38L, -2e38L, 1e38L, -1e38L});
  EXPECT_LT(cancelling.e.acc, inf);
  EXPECT_LT(cancelling.e.prob, inf);
}

// exp's argument error d travels through the secant (exp(x + d) - exp(x)) / d once d is not small:
// the bound covers exp of every argument within d, which the tangent exp(x) d does not (at x = 0,
// d = 1 it gives 1 where e - 1 is needed); past long double's range it is infinite. Small errors
// keep the tangent.
TEST(Tracked, ExpOfALargeArgumentErrorCoversTheWholeInterval) {
  TrackingScope scope(f32_context());
  const long double k = kFormulation;
  for (const long double x : {0.0L, -5.0L, -20.0L, 3.0L}) {
    for (const long double d : {0.5L, 1.0L, 8.0L}) {
      Tracked arg(x);
      arg.e.det = d / k;  // a worst case of d
      const Tracked y = exp(arg), z = expm1(arg);
      const long double reach = std::exp(x + d) - std::exp(x);
      // The bound counts the argument's single roundings k times: k (det - spec), the budget apart
      // (whose subtraction in long double leaves a relative 1e-12 of slack).
      EXPECT_GE(k * (y.e.det - y.e.spec), reach * (1 - 1e-12L)) << "exp at " << x << " with error " << d;
      EXPECT_GE(k * (z.e.det - z.e.spec), reach * (1 - 1e-12L)) << "expm1 at " << x << " with error " << d;
    }
  }
  Tracked huge(-942.0L);
  huge.e.det = 0x1p40L;  // A + B near 1.8e19 rounded in f32
  EXPECT_EQ(exp(huge).e.det, std::numeric_limits<long double>::infinity());
  Tracked small(2.0L);
  small.e.det = 0x1p-24L;
  EXPECT_EQ(exp(small).e.det - exp(small).e.spec, std::exp(2.0L) * 0x1p-24L);
}

// A product of two values whose errors reach their own size: the bound covers every product of
// operands within their errors, (|a| + da)(|b| + db) - |a b|, which the first order, |a| db +
// |b| da, does not (a B-spline basis (1 - f)^5 / 5! next to a knot, found by hunt). Small
// relative errors keep the first order.
TEST(Tracked, AProductOfLargeRelativeErrorsCoversEveryProductOfTheOperands) {
  TrackingScope scope(f32_context());
  const long double k = kFormulation;
  Tracked a(0x1p-3L), b(3.0L);
  a.e.det = 2 * a.v / k;  // a worst case of twice |a|
  b.e.det = 0.5L / k;
  const Tracked p = a * b;
  const long double reach = (a.v + 2 * a.v) * (b.v + 0.5L) - a.v * b.v;
  EXPECT_GE(k * p.e.det, reach * (1 - 1e-12L));
  Tracked power = a;
  for (int i = 1; i < 5; ++i) power = power * a;
  EXPECT_GE(k * power.e.det, (std::pow(3 * a.v, 5) - std::pow(a.v, 5)) * (1 - 1e-12L));
  Tracked c(1.5L), d(2.5L);
  c.e.det = 0x1p-24L;
  d.e.det = 0x1p-24L;
  EXPECT_EQ((c * d).e.det - rounding_of(c.v * d.v, false), (c.v + d.v) * 0x1p-24L);
}

// A device that may flush subnormals may read a subnormal operand as zero (NVIDIA's Vulkan does,
// for a bf16 operand widened to f32): an input below the smallest normal carries its own size as
// error there, and nowhere else.
TEST(Tracked, SubnormalInputsOfAFlushingDeviceMayReadAsZero) {
  const OpCall add = make_call(OpKind::add, OpAttrs{}, DType::bf16, {Shape{1}, Shape{1}});
  RefTensor a, b, dout;
  a.shape = b.shape = dout.shape = Shape{1};
  a.v = {-4.5e-38L};
  b.v = {static_cast<long double>(round_to(DType::bf16, 1.5e-39))};  // subnormal in f32 and bf16
  dout.v = {1};
  const long double sub = std::fabs(b.v[0]);
  for (const bool flush : {false, true}) {
    const Bounded r = bounded_evaluate(add, {a, b}, dout, &correctly_rounded_profile(), flush);
    if (flush)
      EXPECT_GE(r.output.err[0].det, sub);
    else
      EXPECT_LT(r.output.err[0].det, sub / 4);
  }
  // Divided by such an operand, the quotient may be infinite there: no bound holds.
  const OpCall div = make_call(OpKind::div, OpAttrs{}, DType::bf16, {Shape{1}, Shape{1}});
  EXPECT_EQ(bounded_evaluate(div, {a, b}, dout, &correctly_rounded_profile(), true).output.err[0].det,
            std::numeric_limits<long double>::infinity());
  EXPECT_LT(bounded_evaluate(div, {a, b}, dout, &correctly_rounded_profile(), false).output.err[0].det,
            std::numeric_limits<long double>::infinity());
}

// An f64 product needs up to 106 bits: its long-double rounding can look representable in f64.
TEST(Tracked, ProductExactnessDoesNotTrustTheLongDoubleRounding) {
  const long double a = 1 + 0x1p-52L, p = a * a;  // exact: 1 + 2^-51 + 2^-104; long double drops 2^-104
  EXPECT_TRUE(representable_in(p, 53, -1022));
  EXPECT_FALSE(product_is_exact(a, a, p));
  EXPECT_TRUE(product_is_exact(3, 0.5L, 1.5L));
  TrackingScope scope(context_for(DType::f64, &correctly_rounded_profile(), false));
  EXPECT_GT((Tracked(a) * Tracked(a)).e.det, 0);
  EXPECT_FALSE(sum_is_exact(1, 0x1p-70L, 1));
}

// A library call costs the profile's budget in ULPs of its result; errors of its argument travel
// through its derivative.
class ThreeUlps final : public MathProfile {
 public:
  std::string source() const override { return "3 ULP"; }
  FnBudget budget(MathFn, DType, long double, long double, long double) const override { return {3}; }
};

TEST(Tracked, LibraryCallChargesTheProfileBudget) {
  const ThreeUlps three;
  TrackingScope scope(context_for(DType::f32, &three, false));
  const Tracked y = exp(Tracked(2.0));
  EXPECT_EQ(y.e.det, 3 * compute_ulp(std::exp(2.0L)));
  EXPECT_EQ(y.e.spec, y.e.det);
  const Tracked z = exp(Tracked(0.5) * Tracked(0.1L));  // the product's rounding, times e^0.05
  EXPECT_NEAR(static_cast<double>(z.e.det - 3 * compute_ulp(z.v)),
              static_cast<double>(z.v * (std::fabs(0.1L - static_cast<long double>(0.1f)) * 0.5L +
                                         0.5L * static_cast<long double>(0.1f) * 0x1p-24L)),
              1e-12);
}

// rounding_of reads precomputed constants (RoundingUnit) instead of evaluating the standard
// model's formula, max(u |v|, half the spacing at v), plus |v| below the normal range where a
// device may flush: the two agree bit for bit on every kind of value, in every context, and a
// thread's default (the long-double reference's own arithmetic, constants written by hand) is
// the unit of that context.
long double model_rounding(long double v, const TrackingContext& c) {
  // Past the largest finite value of the compute format (emax = 1 - emin) rounding gives infinity.
  const long double largest = std::ldexp(2.0L - std::ldexp(1.0L, 1 - c.digits), 1 - c.min_exponent);
  if (c.digits < 64 && std::fabs(v) >= largest + std::ldexp(1.0L, 1 - c.min_exponent - c.digits))
    return std::numeric_limits<long double>::infinity();
  long double r = std::max(std::fabs(v) * std::ldexp(1.0L, -c.digits), ulp_in(v, c.digits, c.min_exponent) / 2);
  if (c.flush && v != 0 && std::fabs(v) < std::ldexp(1.0L, c.min_exponent)) r = std::fmax(r, std::fabs(v));
  return r;
}

TEST(Tracked, RoundingMatchesTheStandardModelInEveryContext) {
  const RoundingUnit own = rounding_unit();
  const RoundingUnit expected = rounding_unit_of(context_for(DType::f64, nullptr, false));
  EXPECT_EQ(own.u, expected.u);
  EXPECT_EQ(own.min_normal, expected.min_normal);
  EXPECT_EQ(own.floor, expected.floor);
  EXPECT_EQ(own.flush, expected.flush);
  EXPECT_EQ(own.overflow, expected.overflow);
  std::vector<long double> values{0,           1,          -1,      0.1L,
                                  3e38L,       1e-30L,     -1e-40L, 1e-45L,
                                  1e-300L,     1e-310L,    1e-320L, std::numeric_limits<long double>::infinity(),
                                  0x1p-16440L, 0x1p-16382L};
  for (int e = -1080; e <= 1030; e += 7) values.push_back(std::ldexp(1.3L, e));
  for (int e : {-126, -149, -1022, -1074, -16382}) {
    values.push_back(std::ldexp(1.0L, e));
    values.push_back(std::nextafter(std::ldexp(1.0L, e), 0.0L));
  }
  const std::vector<TrackingContext> contexts{
      context_for(DType::f64, nullptr, false),
      context_for(DType::f32, &correctly_rounded_profile(), false),
      context_for(DType::f32, &correctly_rounded_profile(), true),
      context_for(DType::f64, &correctly_rounded_profile(), true),
      context_for(DType::bf16, &correctly_rounded_profile(), false),
  };
  for (const TrackingContext& c : contexts) {
    TrackingScope scope(c);
    for (long double v : values)
      for (long double s : {v, -v}) EXPECT_EQ(rounding_of(s, false), model_rounding(s, c)) << "v=" << s;
  }
  std::thread([] { EXPECT_EQ(tracking_context().digits, 64); }).join();  // a new thread's default
}

TEST(Tracked, StoredValuesRoundToTheirStorageType) {
  TrackingScope f16(context_for(DType::f16, &correctly_rounded_profile(), false));
  const Tracked y(0.1f);  // exact in f32, not in f16
  EXPECT_EQ(y.e.det, 0);
  EXPECT_EQ(stored(y).e.det, ulp_in(y.v, 11, -14) / 2);
}

// Accumulations: the worst case grows like n, the probabilistic scale like sqrt(n).
TEST(Sum, ProbabilisticScaleGrowsLikeTheSquareRoot) {
  TrackingScope scope(f32_context());
  auto sum_of = [](int n) {
    Sum<Tracked> s;
    for (int i = 0; i < n; ++i) s.add(Tracked(1.0f + 0.1f * static_cast<float>(i % 7)));
    return s.result();
  };
  const Tracked s64 = sum_of(64), s4096 = sum_of(4096);
  EXPECT_EQ(s64.e.det, 0);  // the terms are exact: every error is the accumulation's own
  // Exactly summable terms (multiples of 2^-10, small) add exactly in any order.
  Sum<Tracked> exact;
  for (int i = 0; i < 4096; ++i) exact.add(Tracked(0x1p-10f * static_cast<float>(i % 7)));
  EXPECT_TRUE(exact.result().exact());
  const long double acc_growth = s4096.e.acc / s64.e.acc, prob_growth = s4096.e.prob / s64.e.prob;
  EXPECT_GT(acc_growth, 2000);  // ~ 64^2: partial sums grow with n, and there are n of them
  EXPECT_GT(prob_growth, 300);  // ~ 64^1.5: the square root of the sum of their squares
  EXPECT_LT(prob_growth, 1000);
  EXPECT_LT(kLambda * s4096.e.prob, s4096.e.acc / 8);  // so the probabilistic bound is the one used
  // A single product: its rounding is a single rounding (det), not an accumulation's.
  Sum<Tracked> one;
  one.add_product(Tracked(0.1f), Tracked(3.0f));
  EXPECT_GT(one.result().e.det, 0);
  EXPECT_EQ(one.result().e.acc, 0);
}

// --- whole ops against float kernels ----------------------------------------------------------

constexpr std::int64_t kRows = 64, kCols = 128;
const Shape kShape{kRows, kCols};

const MathProfile& glibc() {
  for (const auto& p : backend_providers())
    if (p.name == "cpu") return *p.math;
  throw std::runtime_error("no cpu provider");
}

RefTensor widen(const std::vector<float>& v, const Shape& s) {
  RefTensor t;
  t.shape = s;
  t.v.assign(v.begin(), v.end());
  return t;
}

// The largest error / bound of a float kernel's results against the glibc profile's bounds, as
// the harness's tolerance combines them.
double worst_margin(const std::vector<float>& got, const RefTensor& bounded) {
  Case c;  // the tolerance needs only the dtype and the family
  c.decl.op = OpKind::exp;
  c.dtype = DType::f32;
  const Tolerance tol = tolerance_for(c, glibc());
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = static_cast<double>(std::fabs(static_cast<long double>(got[i]) - bounded.v[i]));
    worst = std::max(worst, err / tol.bound(bounded.err[i], static_cast<double>(bounded.v[i])));
  }
  return worst;
}

struct Kernel {
  std::string name;
  OpKind op;
  OpAttrs attrs;
  float lo, hi;
  std::function<float(float)> stable, cancelling;
};

float sigmoid(float x) { return x >= 0 ? 1.f / (1.f + std::exp(-x)) : std::exp(x) / (1.f + std::exp(x)); }
float gelu_u(float x) { return 0.7978845608f * (x + 0.044715f * x * x * x); }

std::vector<Kernel> kernels() {
  OpAttrs tanh_form;
  tanh_form.gelu = GeluApprox::tanh;
  return {
      {"gelu(erf) tail",
       OpKind::gelu,
       {},
       -10,
       -3,
       [](float x) { return 0.5f * x * std::erfc(-x * 0.70710678f); },
       [](float x) { return 0.5f * x * (1.f + std::erf(x * 0.70710678f)); }},
      {"gelu(tanh) tail", OpKind::gelu, tanh_form, -10, -3, [](float x) { return x * sigmoid(2.f * gelu_u(x)); },
       [](float x) { return 0.5f * x * (1.f + std::tanh(gelu_u(x))); }},
      {"expm1 near 0",
       OpKind::expm1,
       {},
       -1e-3f,
       1e-3f,
       [](float x) { return std::expm1(x); },
       [](float x) { return std::exp(x) - 1.f; }},
      {"softplus",
       OpKind::softplus,
       {},
       -30,
       30,
       [](float x) { return std::max(x, 0.f) + std::log1p(std::exp(-std::fabs(x))); },
       [](float x) { return std::log(1.f + std::exp(x)); }},
  };
}

TEST(TrackedBounds, StableKernelsPassCancellingOnesFail) {
  std::mt19937_64 rng(3);
  for (const Kernel& k : kernels()) {
    std::vector<float> x(static_cast<std::size_t>(kShape.numel())), good(x.size()), bad(x.size());
    for (auto& v : x) v = std::uniform_real_distribution<float>(k.lo, k.hi)(rng);
    for (std::size_t i = 0; i < x.size(); ++i) good[i] = k.stable(x[i]), bad[i] = k.cancelling(x[i]);
    const OpCall call = make_call(k.op, k.attrs, DType::f32, {kShape});
    const RefTensor dy = widen(std::vector<float>(x.size(), 1.f), kShape);
    const Bounded b = bounded_evaluate(call, {widen(x, kShape)}, dy, &glibc());
    EXPECT_LE(worst_margin(good, b.output), 1.0) << k.name << ": the stable form";
    EXPECT_GT(worst_margin(bad, b.output), 10.0) << k.name << ": the cancelling form";
  }
}

// A kernel sums in its own order (lanes, a tree), not the reference's. Here the sequential
// partial sums cancel by construction (g1, -g1 + h1, g2, -g2 + h2, ...: each pair leaves only
// h_i) while the lanes of a two-lane order are random walks of the g_i: the bound must cover
// both, as it covers a pairwise tree.
TEST(TrackedBounds, AccumulationBoundsHoldInTheKernelsOrder) {
  TrackingScope scope(f32_context());
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal;
  std::function<float(const float*, std::size_t)> pairwise = [&](const float* t, std::size_t n) {
    return n == 1 ? t[0] : pairwise(t, n / 2) + pairwise(t + n / 2, n - n / 2);
  };
  double worst_seq = 0, worst_lanes = 0, worst_tree = 0;
  for (int row = 0; row < 500; ++row) {
    std::vector<float> t;
    for (int i = 0; i < 64; ++i) {
      const float g = normal(rng);
      t.push_back(g);
      t.push_back(-g + 1e-3f * normal(rng));
    }
    Sum<Tracked> sum;
    float seq = 0, lanes[2] = {0, 0};
    for (std::size_t i = 0; i < t.size(); ++i) {
      sum.add(Tracked(t[i]));
      seq += t[i];
      lanes[i % 2] += t[i];
    }
    const Tracked exact = sum.result();  // long double holds these sums exactly
    const double bound = propagated_error(exact.e);
    auto margin = [&](float got) { return static_cast<double>(std::fabs(got - exact.v)) / bound; };
    worst_seq = std::max(worst_seq, margin(seq));
    worst_lanes = std::max(worst_lanes, margin(lanes[0] + lanes[1]));
    worst_tree = std::max(worst_tree, margin(pairwise(t.data(), t.size())));
  }
  EXPECT_LE(worst_seq, 1.0);
  EXPECT_LE(worst_lanes, 1.0);
  EXPECT_LE(worst_tree, 1.0);
}

// Rows at 1000 + N(0, 0.01): E[x^2] - E[x]^2 loses every digit, the two-pass form keeps them.
TEST(TrackedBounds, OnePassVarianceFailsTwoPassPasses) {
  std::mt19937_64 rng(5);
  std::vector<float> x(static_cast<std::size_t>(kShape.numel()));
  for (auto& v : x) v = 1000.f + 0.01f * std::normal_distribution<float>()(rng);
  std::vector<float> two(kRows), one(kRows);
  for (std::int64_t r = 0; r < kRows; ++r) {
    const float* row = &x[static_cast<std::size_t>(r * kCols)];
    float sum = 0, sq = 0;
    for (std::int64_t j = 0; j < kCols; ++j) sum += row[j], sq += row[j] * row[j];
    const float mean = sum / kCols;
    float dev = 0;
    for (std::int64_t j = 0; j < kCols; ++j) dev += (row[j] - mean) * (row[j] - mean);
    two[static_cast<std::size_t>(r)] = dev / kCols;
    one[static_cast<std::size_t>(r)] = sq / kCols - mean * mean;
  }
  OpAttrs a;
  a.axis = 1;
  const OpCall call = make_call(OpKind::variance, a, DType::f32, {kShape});
  const Bounded b =
      bounded_evaluate(call, {widen(x, kShape)}, widen(std::vector<float>(kRows, 1.f), Shape{kRows}), &glibc());
  EXPECT_LE(worst_margin(two, b.output), 1.0);
  EXPECT_GT(worst_margin(one, b.output), 10.0);
}

}  // namespace
}  // namespace gp::ref
