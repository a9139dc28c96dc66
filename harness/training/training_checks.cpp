// The checks of a training run: its bound through the steps (probes of every node's and every
// optimizer step's own error through the whole trajectory, as for a composite's end-to-end
// bound), the amplification of an initial perturbation per step, and the comparisons.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/inputs.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/graph/composite_checks.hpp"
#include "harness/training/training_loop.hpp"

namespace gp {

namespace {

// A bound whose root mean square over a tensor's elements after the last step exceeds this share
// of the values' judges nothing: the run is chaotic or its steps too large, and the check says so
// (MISTRUSTED) instead of passing. Root mean squares, not the widest element: an Adam update of a
// gradient near 0 is about lr sign(g), and the few elements whose gradient's sign a device's
// rounding may flip get a bound of 2 lr without making the rest unjudgeable.
constexpr double kUsefulShare = 1e-2;
// The size of the initial perturbation whose growth gives the amplification per step, relative
// to each parameter's values: far above long double's rounding, far below any nonlinearity.
constexpr long double kPerturbation = 1e-9L;

struct TrajectoryBound {
  std::vector<long double> loss;                             // root mean square of the probes, [step]
  std::vector<std::vector<std::vector<long double>>> slots;  // [step][slot][element]
  std::vector<double> amplification;                         // [step], from step 2
};

void encode(BlobWriter& w, const TrajectoryBound& b) { encode_fields(w, b.loss, b.slots, b.amplification); }
void decode(BlobReader& r, TrajectoryBound& b) { decode_fields(r, b.loss, b.slots, b.amplification); }

TrajectoryBound bound_trajectory(const Composite& c, const std::vector<ref::RefTensor>& leaves, const Trajectory& exact,
                                 const BoundArithmetic& a) {
  auto flat = [&](const NodeOps& ops) {
    const Trajectory t = train_on_reference(c, leaves, ops);
    std::vector<long double> v = t.loss;
    for (const auto& step : t.slots)
      for (const auto& slot : step) v.insert(v.end(), slot.v.begin(), slot.v.end());
    return v;
  };
  const std::vector<long double> rms = probe_rms(flat, a, kTrainingProbes, {c.id, "training probe "});
  TrajectoryBound b;
  b.loss.assign(rms.begin(), rms.begin() + static_cast<std::ptrdiff_t>(exact.loss.size()));
  std::size_t at = exact.loss.size();
  for (const auto& step : exact.slots) {
    b.slots.emplace_back();
    for (const auto& t : step) {
      b.slots.back().emplace_back(rms.begin() + static_cast<std::ptrdiff_t>(at),
                                  rms.begin() + static_cast<std::ptrdiff_t>(at + t.v.size()));
      at += t.v.size();
    }
  }
  auto square = [](long double d) { return d * d; };
  // Amplification: the exact steps from parameters moved by a tiny random direction.
  std::vector<ref::RefTensor> nudged = leaves;
  Rng rng = Rng::for_case(0, c.id, "training amplification");
  for (std::size_t k = 0; k < nudged.size(); ++k)
    if (c.decl.leaves[k].parameter)
      for (auto& v : nudged[k].v) v += kPerturbation * (std::fabs(v) + 1e-3L) * static_cast<long double>(rng.normal());
  const Trajectory far = train_on_reference(c, nudged, exact_node_ops());
  long double before = 0;
  for (std::size_t k = 0; k < exact.slots.size(); ++k) {
    long double d = 0;
    for (std::size_t s = 0; s < exact.slots[k].size(); ++s)
      for (std::size_t j = 0; j < exact.slots[k][s].v.size(); ++j)
        d += square(far.slots[k][s].v[j] - exact.slots[k][s].v[j]);
    d = std::sqrt(d);
    if (k > 0) b.amplification.push_back(before > 0 ? static_cast<double>(d / before) : 0.0);
    before = d;
  }
  return b;
}

// The first element whose error exceeds its bound; -1 if none.
std::int64_t first_outside(const ref::RefTensor& expected, const HostTensor& got, const Tolerance& tol) {
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    const auto ii = static_cast<std::size_t>(i);
    const double e = static_cast<double>(expected.v[ii]);
    const double d = std::fabs(got.get(i) - e);
    if (!(d <= tol.bound(expected.err[ii], e))) return i;
  }
  return -1;
}

std::string amplification_text(const std::vector<double>& a) {
  if (a.empty()) return "one step";
  const auto worst = std::max_element(a.begin(), a.end());
  double product = 1;
  for (double x : a) product *= x;
  char text[160];
  std::snprintf(text, sizeof text, "amplification per step max %.3g (step %d), product %.3g", *worst,
                static_cast<int>(worst - a.begin()) + 2, product);
  return text;
}

CheckResult convergence(const Composite& c, const std::string& device_id, double first, double last,
                        std::uint64_t seed) {
  CheckResult r = blank_composite_result(c, device_id, Direction::forward, "convergence", seed);
  const double factor = c.decl.training->convergence;
  char text[200];
  std::snprintf(text, sizeof text, "loss %.6g at step 1, %.6g at step %d: %s the stated factor %g", first, last,
                c.decl.training->steps, last * factor <= first ? "fell by" : "did not fall by", factor);
  r.tolerance = "the loss falls by the stated factor";
  r.reason = text;
  r.verdict = last * factor <= first ? Verdict::pass : Verdict::fail;
  return r;
}

}  // namespace

ref::ErrorBound training_probe_error(long double rms) {
  return probe_error_bound(std::numeric_limits<long double>::infinity(), rms, kTrainingProbeSafety);
}

std::string training_bound_text() {
  char text[80];
  std::snprintf(text, sizeof text, "%g x %d probes' root mean square x %g", kLambda, kTrainingProbes,
                kTrainingProbeSafety);
  return text;
}

CheckResult training_check(CheckResult r, const ref::RefTensor& e, const HostTensor& got, const Tolerance& tol,
                           std::int64_t per_step, const std::string& how) {
  const Comparison cmp = compare_to_reference(e, got, tol, r.dtype);
  r.metrics = cmp.metrics;
  r.verdict = cmp.verdict;
  r.reason = cmp.reason;
  r.tolerance = how;
  if (const std::int64_t i = first_outside(e, got, tol); i >= 0 && r.verdict == Verdict::fail && per_step > 0) {
    r.steps.first_out = static_cast<int>(i / per_step + 1);
    r.reason = "left its band first at step " + std::to_string(r.steps.first_out) + " (element " +
               std::to_string(i % per_step) + "); " + r.reason;
  }
  return r;
}

std::vector<CheckResult> check_training_reference(const Composite& c, const CompositeReference& r, std::uint64_t seed) {
  const Trajectory t = train_on_reference(c, widened(r.leaves), exact_node_ops());
  return {convergence(c, "reference", static_cast<double>(t.loss.front()), static_cast<double>(t.loss.back()), seed)};
}

namespace {

// Everything on the device, within guarded_composite_checks.
std::vector<CheckResult> training_checks(const Composite& c, const std::string& device_id, Backend& backend,
                                         Queue& queue, const CompositeReference& r, std::uint64_t seed) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<ref::RefTensor> leaves = widened(r.leaves);
  const Trajectory exact = [&] {
    PhaseTimer timer(Phase::reference);
    return train_on_reference(c, leaves, exact_node_ops());
  }();
  const MathProfile* profile = backend.info().math;
  const bool flush = backend.info().may_flush_subnormals;
  CacheKeyBuilder key = composite_cache_key("training-bound", c, r);
  const TrajectoryBound b = cached_bounds<TrajectoryBound>(r.cache, key, profile, flush, [&] {
    return bound_trajectory(c, leaves, exact, {profile, flush, r.node_bounds(), r.cache});
  });
  const DeviceTrajectory d = train_on_device(c, backend, queue, r.leaves);
  const Tolerance tol = composite_tolerance(c, backend);
  const std::string how =
      "bound through the steps: " + training_bound_text() + "; " + amplification_text(b.amplification);
  const auto steps = static_cast<std::int64_t>(exact.loss.size());
  std::vector<CheckResult> out;
  ref::RefTensor loss;
  loss.shape = Shape{steps};
  HostTensor got(c.dtype, loss.shape);
  for (std::int64_t k = 0; k < steps; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    loss.v.push_back(exact.loss[kk]);
    loss.err.push_back(training_probe_error(b.loss[kk]));
    got.set(k, d.loss[kk]);
  }
  out.push_back(training_check(blank_composite_result(c, device_id, Direction::forward, "loss at every step", seed),
                               loss, got, tol, 1, how));
  TrainingSteps& curve = out.back().steps;
  for (std::int64_t k = 0; k < steps; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    curve.loss.push_back(d.loss[kk]);
    curve.reference.push_back(static_cast<double>(loss.v[kk]));
    curve.bound.push_back(tol.bound(loss.err[kk], static_cast<double>(loss.v[kk])));
  }
  curve.amplification = b.amplification;
  const std::vector<std::string> names = slot_names(c);
  for (std::size_t s = 0; s < names.size(); ++s) {
    const std::int64_t n = exact.slots[0][s].numel();
    ref::RefTensor e;
    e.shape = Shape{steps, n};
    HostTensor g(c.dtype, e.shape);
    long double last_square = 0, bound_square = 0;
    for (std::int64_t k = 0; k < steps; ++k)
      for (std::int64_t j = 0; j < n; ++j) {
        const auto kk = static_cast<std::size_t>(k);
        const auto jj = static_cast<std::size_t>(j);
        e.v.push_back(exact.slots[kk][s].v[jj]);
        e.err.push_back(training_probe_error(b.slots[kk][s][jj]));
        g.set(k * n + j, d.slots[kk][s].get(j));
        if (k + 1 == steps) {
          last_square += e.v.back() * e.v.back();
          const long double b = tol.bound(e.err.back(), static_cast<double>(e.v.back()));
          bound_square += b * b;
        }
      }
    CheckResult x = training_check(
        blank_composite_result(c, device_id, Direction::forward, names[s] + " at every step", seed), e, g, tol, n, how);
    const long double rms = std::sqrt(last_square / static_cast<long double>(n));
    const long double wide = std::sqrt(bound_square / static_cast<long double>(n));
    if (x.verdict == Verdict::pass && wide > kUsefulShare * rms) {
      x.verdict = Verdict::mistrusted;
      x.reason = "the bound after the last step is " + std::to_string(static_cast<double>(wide / rms)) +
                 " of the values (root mean squares): too wide to judge (" + amplification_text(b.amplification) + ")";
    }
    out.push_back(std::move(x));
  }
  for (auto& x : check_micro_batches(c, {device_id, &backend, &queue}, r, tol, seed)) out.push_back(std::move(x));
  out.push_back(convergence(c, device_id, d.loss.front(), d.loss.back(), seed));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (auto& x : out) x.time_ms = ms;
  return out;
}

}  // namespace

CompositeReference prepare_training_reference(const Composite& c, std::uint64_t seed) {
  return prepare_composite_reference(c, seed,
                                     [&](std::vector<HostTensor>& leaves) { fill_teacher_targets(c, leaves, seed); });
}

std::vector<OpCall> training_device_calls_of(const Composite& c) {
  std::vector<OpCall> calls = device_calls_of(c);
  for (auto& call : training_calls_of(c)) calls.push_back(std::move(call));
  return calls;
}

std::vector<CheckResult> check_training_on_backend(const Composite& c, const std::string& device_id, Backend& backend,
                                                   Queue& queue, const CompositeReference& r, std::uint64_t seed) {
  return guarded_composite_checks(c, training_device_calls_of(c), device_id, backend, seed,
                                  [&] { return training_checks(c, device_id, backend, queue, r, seed); });
}

void fill_teacher_targets(const Composite& c, std::vector<HostTensor>& leaves, std::uint64_t seed) {
  const TrainingDecl& t = *c.decl.training;
  Case draw = c.leaf_case();
  draw.id = c.id + " teacher";
  const std::vector<HostTensor> teacher = make_inputs(draw, seed);
  std::vector<ref::RefTensor> in = widened(leaves);
  for (std::size_t k = 0; k < leaves.size(); ++k)
    if (c.decl.leaves[k].parameter) in[k] = ref::RefTensor::from_host(teacher[k]);
  const ref::RefTensor y = evaluate_graph(c, in, exact_node_ops(), false).value.at(c.decl.output);
  std::size_t target = 0;
  while (c.decl.leaves.at(target).name != t.target) ++target;
  HostTensor& out = leaves[target];
  if (!t.classes) {
    for (std::int64_t i = 0; i < out.numel(); ++i) out.set(i, static_cast<double>(y.v[static_cast<std::size_t>(i)]));
    return;
  }
  const std::int64_t rows = out.numel(), width = y.numel() / rows;
  for (std::int64_t b = 0; b < rows; ++b) {
    const auto row = y.v.begin() + static_cast<std::ptrdiff_t>(b * width);
    out.set(b, static_cast<double>(std::max_element(row, row + width) - row));
  }
}

}  // namespace gp
