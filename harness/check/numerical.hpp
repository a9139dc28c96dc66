// Directional finite-difference checks with a Richardson error split.
//
// For a direction delta and step scales t = 1 and t = 1/2 the caller evaluates
//     S_t = v . (F(x + t delta) - F(x - t delta))    (finite difference, contracted with v)
//     A_t = g . Delta_t                              (analytic VJP g = J^T v, Delta_t = x+ - x-)
// and bounds R_t (rounding error of S_t, from the forward error model) and G_t (the error the
// gradient is allowed, from the backward error model). Writing S_t - A_t = a*t + b*t^3 + noise,
// a*t being a gradient error (linear in the step) and b*t^3 the truncation of the central
// difference, the two steps separate them: b/8 = (err_1 - 2 err_1/2) / 6. A correct gradient
// leaves |a/2| within G_1/2 plus the rounding noise; a wrong one does not, whatever the step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cases/case.hpp"
#include "core/tensor.hpp"
#include "results/result.hpp"

namespace gp {

// R and G are probabilistic bounds of sums of many independent rounding errors, each bounded by
// the per-element error model: by Hoeffding's inequality a sum of zero-mean terms |e_i| <= a_i
// exceeds 6 * sqrt(sum a_i^2) with probability below 3e-8. A systematic error of a kernel (a
// relative bias beta) cancels in the central difference to beta * S, far below the bound.
struct FdSample {
  double S = 0, R = 0, A = 0, G = 0;
};
// Accumulates the per-element bounds a_i; bound() is the smaller of the worst case sum a_i and
// the 6-sigma Hoeffding bound 6 * sqrt(sum a_i^2) (the worst case wins for a few elements).
struct NoiseSum {
  double sum_abs = 0, sum_sq = 0;
  void add(double a) {
    sum_abs += a;
    sum_sq += a * a;
  }
  double bound() const;
};

struct FdJudgement {
  Verdict verdict = Verdict::pass;
  std::string reason;
  double gradient_error = 0;  // |a/2|: the part of S - A linear in the step
  double tolerance = 0;
  double truncation = 0;
  double signal = 0;
  // For a MISTRUSTED judgement: whether a larger step (noise dominates) or a smaller one
  // (truncation dominates) may give a meaningful check.
  enum class Advice : std::uint8_t { none, larger, smaller } step_advice = Advice::none;
};

FdJudgement judge_richardson(const FdSample& full, const FdSample& half);

// The step search of both finite-difference checks: after judgement j at `step`, moves the step
// by 4x towards what j advises (longer while noise dominates, shorter while truncation does)
// within [smallest, largest]; false when j stands as it is.
bool next_fd_step(const FdJudgement& j, double& step, double smallest, double largest);

// Folds one judgement into check metrics (max over judgements) and verdict precedence
// (FAIL > MISTRUSTED > PASS).
void fold_judgement(const FdJudgement& j, std::int64_t index, Metrics& m, Verdict& v, std::string& reason);

// The distance from x to the nearest point where input k of the case stops being smooth: the
// catalog's kinks of the op (input 0), those its domain keeps away from, the half-integers of a
// half_integer_free domain, the hardtanh gate's -1, 0 and 1; infinity where none.
double distance_to_kinks(const Case& c, int k, double x);
// Whether x sits exactly on one of those points where no check states which values and gradients
// are acceptable: a unary op's and a B-spline's input 0 has none (harness/check/other_readings.hpp
// accepts either one-sided reading on its kinks, steps and knots).
bool on_unjudged_kink(const Case& c, int k, double x);

// A perturbation direction for input `k` of a case: Gaussian components clipped to [-3, 3],
// scaled per element by max(|x|, 1) (by |x| where the domain has a pole or kink at zero), each
// component limited so that x +- delta stays inside the sampling domain (half the distance to
// its edges), below the case's fd_max_step and, for a case from a file, within half
// the distance to a kink. `h` is the relative step.
std::vector<double> fd_direction(const Case& c, int k, const std::vector<double>& x, double h, std::uint64_t seed,
                                 const std::string& purpose);

// The relative step for finite differences in a type of unit roundoff u: about cbrt(u), the
// balance of truncation (h^2) and rounding (u/h), capped for 16-bit types.
double fd_step(double unit_roundoff);

}  // namespace gp
