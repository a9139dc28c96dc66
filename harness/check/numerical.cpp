#include "harness/check/numerical.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "harness/check/other_readings.hpp"
#include "harness/check/rng.hpp"
#include "harness/check/text.hpp"
#include "harness/check/tied_maxima.hpp"

namespace gp {

namespace {
std::string fmt4(double v) { return format_g(v, 4); }
int rank_of(Verdict v) {
  switch (v) {
    case Verdict::fail:
      return 3;
    case Verdict::mistrusted:
      return 2;
    default:
      return 1;
  }
}
}  // namespace

FdJudgement judge_richardson(const FdSample& full, const FdSample& half) {
  FdJudgement j;
  if (!std::isfinite(full.S) || !std::isfinite(half.S) || !std::isfinite(full.A) || !std::isfinite(half.A)) {
    j.verdict = Verdict::fail;
    j.reason = "non-finite value in the finite differences or the gradient";
    j.gradient_error = std::numeric_limits<double>::infinity();
    return j;
  }
  const double err_full = full.S - full.A;
  const double err_half = half.S - half.A;
  j.truncation = (err_full - 2 * err_half) / 6;
  j.gradient_error = std::fabs(err_half - j.truncation);
  const double noise = half.R + (full.R + 2 * half.R) / 6;
  j.tolerance = half.G + 2 * noise + std::numeric_limits<double>::min();
  j.signal = std::fabs(half.S);
  if (std::fabs(j.truncation) > 0.1 * j.signal && std::fabs(j.truncation) > 3 * noise) {
    j.verdict = Verdict::mistrusted;
    j.step_advice = FdJudgement::Advice::smaller;
    j.reason = "finite differences are not smooth at this step (truncation " + fmt4(j.truncation) + " vs signal " +
               fmt4(j.signal) + "): a kink inside the step?";
  } else if (j.signal < 4 * (noise + std::fabs(j.truncation))) {
    j.verdict = Verdict::mistrusted;
    j.step_advice = FdJudgement::Advice::larger;
    j.reason = "finite differences cancel: signal " + fmt4(j.signal) + " is within 4x the noise " + fmt4(noise);
  } else if (j.gradient_error > j.tolerance) {
    j.verdict = Verdict::fail;
    j.reason = "gradient disagrees with finite differences: v.J.d = " + fmt4(half.S) + ", g.d = " + fmt4(half.A) +
               ", step-linear error " + fmt4(j.gradient_error) + " > tolerance " + fmt4(j.tolerance);
  }
  return j;
}

bool next_fd_step(const FdJudgement& j, double& step, double smallest, double largest) {
  if (j.step_advice == FdJudgement::Advice::larger && step < largest) {
    step *= 4;
    return true;
  }
  if (j.step_advice == FdJudgement::Advice::smaller && step > smallest) {
    step /= 4;
    return true;
  }
  return false;
}

void fold_judgement(const FdJudgement& j, std::int64_t index, Metrics& m, Verdict& v, std::string& reason) {
  ++m.elements;
  if (j.verdict == Verdict::mistrusted) {  // its error/tolerance ratio measures nothing: no margin
    if (rank_of(j.verdict) > rank_of(v)) {
      v = j.verdict;
      reason = j.reason;
    }
    return;
  }
  const double margin = j.tolerance > 0 ? j.gradient_error / j.tolerance : std::numeric_limits<double>::infinity();
  if (m.worst.index < 0 || margin > m.margin) {
    m.margin = margin;
    m.bound = j.tolerance;
    m.worst.index = index;
    m.worst.expected = j.signal;
    m.worst.got = j.gradient_error;
    m.worst.bound = j.tolerance;
  }
  m.max_abs = std::max(m.max_abs, j.gradient_error);
  if (j.signal > 0) m.max_rel = std::max(m.max_rel, j.gradient_error / j.signal);
  if (rank_of(j.verdict) > rank_of(v)) {
    v = j.verdict;
    reason = j.reason;
  }
}

double distance_to_kinks(const Case& c, int k, double x) {
  const Domain& d = c.decl.inputs.at(static_cast<std::size_t>(k)).domain;
  double dist = std::numeric_limits<double>::infinity();
  auto near = [&](double kink) { dist = std::min(dist, std::fabs(x - kink)); };
  if (k == 0)
    for (double kink : op_kinks(c.decl.op)) near(kink);
  for (double kink : d.kinks) near(kink);
  if (d.kind == Domain::Kind::half_integer_free) near(std::floor(x) + 0.5);
  if (d.kind == Domain::Kind::gate)
    for (double kink : {-1.0, 0.0, 1.0}) near(kink);
  return dist;
}

bool on_unjudged_kink(const Case& c, int k, double x) {
  return distance_to_kinks(c, k, x) == 0 && !(k == 0 && kinks_have_stated_readings(c.decl.op));
}

double NoiseSum::bound() const { return std::min(sum_abs, 6 * std::sqrt(sum_sq)); }

double fd_step(double u) { return std::min(2 * std::cbrt(u), 0.25); }

std::vector<double> fd_direction(const Case& c, int k, const std::vector<double>& x, double h, std::uint64_t seed,
                                 const std::string& purpose) {
  const Domain& d = c.decl.inputs.at(static_cast<std::size_t>(k)).domain;
  const bool relative_only = d.fd_length == 0 && (d.min_abs > 0 || d.lo > 0);  // a pole or kink at zero
  Rng rng = Rng::for_case(seed, c.id, purpose + std::to_string(k));
  std::vector<double> delta(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) {
    double u = std::clamp(rng.normal(), -3.0, 3.0);
    // The length over which the op changes: the domain's own (Domain::fd_length), |x| near a
    // pole or kink at zero, else 1 (a relative step of a large |x| would leave the asymptotic
    // regime of periodic ops).
    double scale = d.fd_length > 0 ? d.fd_length : relative_only ? std::fabs(x[j]) : 1.0;
    double step = h * scale * u;
    double limit = std::numeric_limits<double>::infinity();
    if (d.hard_edges) limit = std::min(x[j] - d.lo, d.hi - x[j]) / 2;
    if (relative_only) limit = std::min(limit, (std::fabs(x[j]) - d.min_abs / 2) / 2);
    if (c.decl.fd_max_step > 0) limit = std::min(limit, c.decl.fd_max_step);
    // A catalog case's draw keeps its margin from the kinks; values from a file may sit anywhere,
    // and a step across a kink would measure one one-sided slope on one side, the other on the other.
    if (c.given) limit = std::min(limit, distance_to_kinks(c, k, x[j]) / 2);
    limit = std::max(limit, 0.0);
    delta[j] = std::clamp(step, -limit, limit);
  }
  // A max row's tied maxima stay where they are: a step moving them apart would measure one
  // one-sided slope (the tie is where the gradient is a set: harness/check/other_readings.hpp).
  if (c.given && c.decl.op == OpKind::max)
    for (const auto& row : tied_maxima(c.call.input_shapes.at(0), c.decl.attrs.axis, x))
      for (const std::size_t e : row) delta[e] = 0;
  // A step of a strided input moves the elements its view shares together: a kernel reads them
  // from one place.
  if (const StridedLayout* layout = input_layout(c.call, static_cast<std::size_t>(k)))
    keep_viewable(delta, c.call.input_shapes.at(static_cast<std::size_t>(k)), *layout);
  return delta;
}

}  // namespace gp
