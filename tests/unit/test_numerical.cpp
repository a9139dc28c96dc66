// harness/numerical: the Richardson split of finite differences into step-linear gradient error
// and h^3 truncation, first on synthetic samples with known parts, then on central differences
// of sin, exp and x^3 in double; fd_step; fd_direction's limits; NoiseSum and fold_judgement.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "cases/registry.hpp"
#include "harness/check/numerical.hpp"

namespace gp {
namespace {

constexpr double kU = 0x1p-53;  // unit roundoff of double

// S_t = 2tD + c t^3 (a central difference of a function with directional derivative D and
// third-order term c), A_t = 2tD (1 + rel): a gradient wrong by the relative error `rel`.
FdSample synthetic(double t, double D, double c, double rel, double R, double G) {
  return {2 * t * D + c * t * t * t, R, 2 * t * D * (1 + rel), G};
}

FdJudgement judge(double D, double c, double rel, double R, double G) {
  return judge_richardson(synthetic(1, D, c, rel, R, G), synthetic(0.5, D, c, rel, R, G));
}

TEST(Richardson, ExactGradientWithPureCubicTruncationPasses) {
  const FdJudgement j = judge(1.0, 0.01, 0.0, 1e-14, 1e-12);
  EXPECT_EQ(j.verdict, Verdict::pass) << j.reason;
  EXPECT_NEAR(j.truncation, 0.01 / 8, 1e-15);  // b t^3 at t = 1/2
  EXPECT_LT(j.gradient_error, 1e-15);
  EXPECT_EQ(j.step_advice, FdJudgement::Advice::none);
}

TEST(Richardson, GradientOffByOnePartInAThousandFails) {
  for (double c : {0.0, 0.01, -0.03}) {
    const FdJudgement j = judge(1.0, c, 1e-3, 1e-14, 1e-8);
    EXPECT_EQ(j.verdict, Verdict::fail) << "c = " << c;
    EXPECT_NEAR(j.gradient_error, 1e-3, 1e-12);  // |a / 2| with A_1/2 = D (1 + 1e-3)
    EXPECT_THAT(j.reason, ::testing::HasSubstr("disagrees"));
  }
}

TEST(Richardson, SignalBelowNoiseIsMistrustedAskingForALargerStep) {
  const FdJudgement j = judge(1e-12, 0.0, 0.0, 1e-10, 1e-12);
  EXPECT_EQ(j.verdict, Verdict::mistrusted);
  EXPECT_EQ(j.step_advice, FdJudgement::Advice::larger);
  EXPECT_THAT(j.reason, ::testing::HasSubstr("cancel"));
}

TEST(Richardson, HugeTruncationIsMistrustedAskingForASmallerStep) {
  const FdJudgement j = judge(1.0, 100.0, 0.0, 1e-14, 1e-12);
  EXPECT_EQ(j.verdict, Verdict::mistrusted);
  EXPECT_EQ(j.step_advice, FdJudgement::Advice::smaller);
  EXPECT_NEAR(j.truncation, 12.5, 1e-12);
}

TEST(Richardson, NonFiniteSamplesFail) {
  FdSample full = synthetic(1, 1, 0, 0, 1e-14, 1e-12), half = synthetic(0.5, 1, 0, 0, 1e-14, 1e-12);
  half.A = NAN;
  EXPECT_EQ(judge_richardson(full, half).verdict, Verdict::fail);
  half.A = 1;
  full.S = INFINITY;
  EXPECT_EQ(judge_richardson(full, half).verdict, Verdict::fail);
}

// Central differences in double of functions with known derivatives, bounds from the double
// error model: each evaluation of f is within 2u|f|, and the analytic A = f'(x) * Delta within
// 2u|A|; R and G take twice that.
struct KnownFunction {
  const char* name;
  std::function<double(double)> f, df;
};

const std::vector<KnownFunction>& known_functions() {
  static const std::vector<KnownFunction> fs = {
      {"sin", [](double x) { return std::sin(x); }, [](double x) { return std::cos(x); }},
      {"exp", [](double x) { return std::exp(x); }, [](double x) { return std::exp(x); }},
      {"cube", [](double x) { return x * x * x; }, [](double x) { return 3 * x * x; }},
  };
  return fs;
}

FdSample central_difference(const KnownFunction& fn, double x, double step, double gradient) {
  const double xp = x + step, xm = x - step;
  const double fp = fn.f(xp), fm = fn.f(xm);
  FdSample s;
  s.S = fp - fm;
  s.A = gradient * (xp - xm);  // the perturbation actually applied, after rounding x +- step
  s.R = 4 * kU * (std::fabs(fp) + std::fabs(fm));
  s.G = 4 * kU * std::fabs(s.A);
  return s;
}

TEST(RichardsonOnKnownFunctions, ExactGradientPassesAndOnePpmOffFails) {
  int judged = 0;
  for (const auto& fn : known_functions()) {
    for (double x : {-1.3, -0.4, 0.2, 0.7, 2.1}) {
      const double h = fd_step(kU) * std::max(1.0, std::fabs(x));
      const double g = fn.df(x);
      const FdJudgement right = judge_richardson(central_difference(fn, x, h, g), central_difference(fn, x, h / 2, g));
      EXPECT_EQ(right.verdict, Verdict::pass) << fn.name << " at " << x << ": " << right.reason;
      const double wrong_g = g * (1 + 1e-6);
      const FdJudgement wrong =
          judge_richardson(central_difference(fn, x, h, wrong_g), central_difference(fn, x, h / 2, wrong_g));
      EXPECT_EQ(wrong.verdict, Verdict::fail) << fn.name << " at " << x << ": " << wrong.reason;
      EXPECT_NEAR(wrong.gradient_error, 1e-6 * std::fabs(g) * h, 1e-2 * 1e-6 * std::fabs(g) * h)
          << fn.name << " at " << x;
      ++judged;
    }
  }
  EXPECT_EQ(judged, 15);
}

TEST(FdStep, BalancesTruncationAndRoundingAndIsCapped) {
  EXPECT_DOUBLE_EQ(fd_step(0x1p-24), 0x1p-7);  // 2 * cbrt(2^-24) = 2 * 2^-8
  EXPECT_DOUBLE_EQ(fd_step(0x1p-53), 2 * std::cbrt(0x1p-53));
  EXPECT_NEAR(fd_step(0x1p-53), 9.6e-6, 1e-7);
  EXPECT_NEAR(fd_step(0x1p-11), 0.1575, 1e-4);
  EXPECT_EQ(fd_step(0x1p-8), 0.25);  // 2 * cbrt(2^-8) = 0.315 is capped
  EXPECT_LT(fd_step(0x1p-53), fd_step(0x1p-24));
}

const Case& first_case(OpKind op) {
  for (const Case& c : all_cases())
    if (c.decl.op == op && c.dtype == DType::f32) return c;
  throw std::runtime_error("no f32 case for " + std::string(op_name(op)));
}

std::vector<double> linspace(double a, double b, int n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = a + (b - a) * i / (n - 1);
  return v;
}

TEST(FdDirection, PlainDomainIsAClippedGaussianTimesH) {
  const Case& c = first_case(OpKind::exp);  // U[-10, 10], no kink
  const std::vector<double> x(10000, 0.0);
  const double h = 1e-3;
  const auto d = fd_direction(c, 0, x, h, 42, "probe");
  double sum_sq = 0;
  for (double v : d) {
    ASSERT_LE(std::fabs(v), 3 * h + 1e-18);
    ASSERT_NE(v, 0.0);
    sum_sq += (v / h) * (v / h);
  }
  EXPECT_NEAR(sum_sq / 10000, 0.99501, 6 * std::sqrt(2.0 / 10000));  // E[min(z^2, 9)], z ~ N(0, 1)
  EXPECT_EQ(d, fd_direction(c, 0, x, h, 42, "probe"));
  EXPECT_NE(d, fd_direction(c, 0, x, h, 42, "other"));
  EXPECT_NE(d, fd_direction(c, 0, x, h, 43, "probe"));
}

// Hard edges (log1p's -0.9 guards its pole at -1) keep x +- delta halfway inside.
TEST(FdDirection, HardEdgesKeepStepsHalfwayInside) {
  const Case& c = first_case(OpKind::log1p);  // U[-0.9, 20], hard edges
  const Domain& d = c.decl.inputs[0].domain;
  ASSERT_TRUE(d.hard_edges);
  const auto x = linspace(d.lo, d.hi, 401);
  const auto delta = fd_direction(c, 0, x, 1.0, 7, "probe");
  for (std::size_t j = 0; j < x.size(); ++j) {
    EXPECT_LE(std::fabs(delta[j]), std::min(x[j] - d.lo, d.hi - x[j]) / 2 + 1e-15) << "x = " << x[j];
    EXPECT_GE(x[j] - std::fabs(delta[j]), d.lo) << "x = " << x[j];
    EXPECT_LE(x[j] + std::fabs(delta[j]), d.hi) << "x = " << x[j];
  }
  EXPECT_EQ(delta.front(), 0.0);  // x on an edge cannot move
  EXPECT_EQ(delta.back(), 0.0);
}

// A sampling range that is not an edge of the op (exp is smooth everywhere) does not shrink
// the step: steps there are as large as anywhere else.
TEST(FdDirection, SoftEdgesOnlyBoundSampling) {
  const Case& c = first_case(OpKind::exp);  // U[-10, 10]
  ASSERT_FALSE(c.decl.inputs[0].domain.hard_edges);
  const std::vector<double> at_edge(64, 10.0);
  const auto delta = fd_direction(c, 0, at_edge, 0.1, 7, "probe");
  double largest = 0;
  for (double v : delta) largest = std::max(largest, std::fabs(v));
  EXPECT_GT(largest, 0.1);
  EXPECT_LE(largest, 0.3);
}

TEST(FdDirection, KinkedOpRespectsFdMaxStepAndNeverCrossesZero) {
  const Case& c = first_case(OpKind::abs);  // |x| >= 0.05, fd_max_step 0.02
  ASSERT_GT(c.decl.fd_max_step, 0);
  std::vector<double> x = linspace(0.05, 5, 200);
  for (double v : linspace(-5, -0.05, 200)) x.push_back(v);
  for (double h : {1.0, 0.01}) {
    const auto d = fd_direction(c, 0, x, h, 3, "probe");
    for (std::size_t j = 0; j < x.size(); ++j) {
      EXPECT_LE(std::fabs(d[j]), c.decl.fd_max_step) << x[j];
      EXPECT_LE(std::fabs(d[j]), 3 * h * std::fabs(x[j]) + 1e-15) << x[j];  // relative to |x|
      for (double s : {1.0, -1.0}) {
        const double moved = x[j] + s * d[j];
        EXPECT_EQ(std::signbit(moved), std::signbit(x[j])) << x[j];
        EXPECT_GE(std::fabs(moved), c.decl.inputs[0].domain.min_abs / 2) << x[j];
      }
    }
  }
}

// A pole at zero (log on U[0.05, 20]): steps are relative to |x| and at most |x| / 2, so
// x - delta never reaches the pole, however large h is.
TEST(FdDirection, PoleAtZeroMakesStepsRelative) {
  const Case& c = first_case(OpKind::log);
  const auto x = linspace(0.05, 20, 300);
  for (double h : {0.1, 10.0}) {
    const auto delta = fd_direction(c, 0, x, h, 5, "probe");
    for (std::size_t j = 0; j < x.size(); ++j) {
      EXPECT_LE(std::fabs(delta[j]), 3 * h * x[j] + 1e-15) << x[j];
      EXPECT_LE(std::fabs(delta[j]), x[j] / 2 + 1e-15) << x[j];
    }
  }
}

TEST(FdDirection, LiftedRowMaximumIsNotAnEdgeButFdMaxStepIs) {
  const Case& c = first_case(OpKind::max);  // unique_row_max on U[-5, 5], fd_max_step 0.02
  const std::vector<double> x(64, 4.999);   // beyond hi after lifting is allowed
  const auto d = fd_direction(c, 0, x, 1.0, 9, "probe");
  double largest = 0;
  for (double v : d) largest = std::max(largest, std::fabs(v));
  EXPECT_LE(largest, c.decl.fd_max_step);
  EXPECT_GT(largest, (5 - 4.999) / 2);  // not limited by the sampling edge hi = 5
}

TEST(NoiseSum, WorstCaseForFewTermsHoeffdingForMany) {
  NoiseSum few;
  for (int i = 0; i < 4; ++i) few.add(1.0);
  EXPECT_EQ(few.bound(), 4.0);  // 6 * sqrt(4) = 12 is larger
  NoiseSum many;
  for (int i = 0; i < 10000; ++i) many.add(1.0);
  EXPECT_DOUBLE_EQ(many.bound(), 600.0);  // 6 * sqrt(10000)
  EXPECT_EQ(NoiseSum{}.bound(), 0.0);
}

TEST(FoldJudgement, FailOutranksMistrustedOutranksPassAndTheWorstMarginIsKept) {
  auto j = [](Verdict v, double err, double tol, const char* why) {
    FdJudgement r;
    r.verdict = v;
    r.gradient_error = err;
    r.tolerance = tol;
    r.signal = 10;
    r.reason = why;
    return r;
  };
  Metrics m;
  Verdict v = Verdict::pass;
  std::string reason;
  fold_judgement(j(Verdict::pass, 1, 4, ""), 0, m, v, reason);
  EXPECT_EQ(v, Verdict::pass);
  fold_judgement(j(Verdict::mistrusted, 1, 2, "noisy"), 1, m, v, reason);
  EXPECT_EQ(v, Verdict::mistrusted);
  EXPECT_EQ(reason, "noisy");
  fold_judgement(j(Verdict::fail, 6, 2, "wrong"), 7, m, v, reason);
  fold_judgement(j(Verdict::mistrusted, 1, 1, "noisy again"), 8, m, v, reason);
  EXPECT_EQ(v, Verdict::fail);
  EXPECT_EQ(reason, "wrong");
  EXPECT_EQ(m.elements, 4);
  EXPECT_DOUBLE_EQ(m.margin, 3.0);
  EXPECT_EQ(m.worst.index, 7);
  EXPECT_EQ(m.max_abs, 6.0);
  EXPECT_DOUBLE_EQ(m.max_rel, 0.6);
}

}  // namespace
}  // namespace gp
