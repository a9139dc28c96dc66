// The checks of one backend on one case: forward and backward against the reference, the
// backend's VJP against finite differences of its own forward, and declared surrogates.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/device_calls.hpp"
#include "harness/check/judgement.hpp"
#include "harness/check/numerical.hpp"
#include "harness/check/other_readings.hpp"
#include "harness/check/poison.hpp"
#include "harness/check/text.hpp"
#include "harness/check/tolerance.hpp"

namespace gp {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Elementwise ops report the inputs behind their worst element.
std::function<std::vector<double>(std::int64_t)> inputs_at(const Case& c, const ReferenceData& data) {
  OpFamily f = op_family(c.decl.op);
  if (f != OpFamily::unary && f != OpFamily::binary) return {};
  return [&c, &data](std::int64_t i) {
    std::vector<double> v;
    if (c.call.input_shapes.size() == 2 && op_family(c.decl.op) == OpFamily::binary) {
      BroadcastPlan p = broadcast_plan(c.call.input_shapes[0], c.call.input_shapes[1]);
      if (i < p.numel) return std::vector<double>{data.inputs[0].get(p.a_index(i)), data.inputs[1].get(p.b_index(i))};
      return v;
    }
    for (const auto& t : data.inputs)
      if (i < t.numel()) v.push_back(t.get(i));
    return v;
  };
}

// The smallest scaling (1 + eps) of the gradient the comparison with the reference catches: the
// least slack bound - |error| relative to the result (infinity where nothing can be scaled).
double comparison_resolution(const Tolerance& tol, const ref::RefTensor& expected, const HostTensor& got) {
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < got.numel() && i < expected.numel(); ++i) {
    const auto ii = static_cast<std::size_t>(i);
    const double g = got.get(i), e = static_cast<double>(expected.v[ii]);
    if (g == 0 || !std::isfinite(g)) continue;
    const double slack = tol.bound(expected.err[ii], e) - std::fabs(g - e);
    best = std::min(best, std::max(0.0, slack) / std::fabs(g));
  }
  return best;
}

// One case on one device, as every check of check_on_backend sees it.
struct CaseOnDevice {
  const Case& c;
  const DeviceContext& device;
  const ReferenceData& data;
  const RunContext& run;
  const Tolerance& tol;
  const ref::Bounded& bounded;
  EvalCounter* counter;
};

// The same for the finite-difference check at its first step: its tolerance G + 2 noise (noise
// about 1.5 R, from the error models alone) over the coherent signal g . delta that a scaled
// gradient moves. Computed without running the backend.
double finite_difference_resolution(const CaseOnDevice& s, const HostTensor& grad, int k,
                                    const std::vector<double>& delta) {
  const Case& c = s.c;
  const Tolerance& tol = s.tol;
  const ref::Bounded& bounded = s.bounded;
  const ReferenceData& data = s.data;
  const auto& gerr = bounded.grads[static_cast<std::size_t>(k)].err;
  const auto& gref = data.grads[static_cast<std::size_t>(k)].v;
  NoiseSum rounding, allowed;
  for (std::int64_t i = 0; i < data.output.numel(); ++i) {
    const auto ii = static_cast<std::size_t>(i);
    const double y = static_cast<double>(data.output.v[ii]);
    rounding.add(std::fabs(data.cotangent.get(i)) * 2 *
                 std::max(tol.bound(bounded.output.err[ii], y), ulp_of(c.dtype, std::fabs(y)) / 2));
  }
  double signal = 0;
  for (std::int64_t j = 0; j < grad.numel(); ++j) {
    const auto jj = static_cast<std::size_t>(j);
    signal += grad.get(j) * delta[jj];  // at t = 1/2 the step is delta itself
    allowed.add(std::fabs(delta[jj]) * tol.bound(gerr[jj], static_cast<double>(gref[jj])));
  }
  return (allowed.bound() + 3 * rounding.bound()) / std::fabs(signal);
}

// The largest value of the reference where the case dtype's overflow is near, or 0: an output
// that twice its magnitude would overflow (a forward at shifted inputs may then round to infinity,
// correctly), or a gradient of input k that overflows itself (the backend's is then infinity).
// Finite differences in the dtype say nothing there.
double near_overflow(const Case& c, const ReferenceData& data, int k) {
  double worst = 0;
  auto note = [&](ref::Real v, double factor) {
    const double a = static_cast<double>(std::fabs(v));
    if (std::isinf(round_to(c.dtype, factor * a))) worst = std::max(worst, a);
  };
  for (auto v : data.output.v) note(v, 2);
  for (auto v : data.grads[static_cast<std::size_t>(k)].v) note(v, 1);
  return worst;
}

// Numerical check (b) for input k: the backend's gradient against differences of its own
// forward in the case dtype, with rounding bounded by the forward error model. It runs only
// where it can catch a smaller gradient error than the comparison with the reference
// (`comparison_eps`): elsewhere it SKIPs with both thresholds in its reason.
CheckResult numerical_backend_check(const CaseOnDevice& s, DeviceCalls& dev, const HostTensor& grad, int k,
                                    double comparison_eps) {
  const Case& c = s.c;
  const Tolerance& tol = s.tol;
  const ref::Bounded& bounded = s.bounded;
  const ReferenceData& data = s.data;
  const std::uint64_t seed = s.run.seed;
  CheckResult r = blank_result(c, s.device.id, Direction::numerical_backend, k, seed);
  if (skip_numerics_of_empty_call(r, c.call)) return r;
  auto t0 = Clock::now();
  const HostTensor& x = data.inputs[static_cast<std::size_t>(k)];
  const std::vector<double> xd = x.to_doubles();
  Verdict v = Verdict::pass;
  std::string reason;
  const auto& gref = data.grads[static_cast<std::size_t>(k)].v;
  // Probe components take the sign of the reference gradient, so the finite-difference signal
  // adds up coherently (it grows like n, the rounding noise like sqrt(n)).
  auto direction = [&](double h, int p) {
    std::vector<double> delta = fd_direction(c, k, xd, h, seed, "backend-probe" + std::to_string(p));
    for (std::size_t i = 0; i < delta.size(); ++i) delta[i] = gref[i] < 0 ? -std::fabs(delta[i]) : std::fabs(delta[i]);
    if (const StridedLayout* layout = input_layout(c.call, static_cast<std::size_t>(k)))
      keep_viewable(delta, c.call.input_shapes[static_cast<std::size_t>(k)], *layout);  // as fd_direction
    return delta;
  };
  if (const double big = near_overflow(c, data, k); big > 0) {
    r.verdict = Verdict::skip;
    r.reason_kind = ReasonKind::covered;
    r.reason = "the reference reaches " + format_g(big, 3) + ", at " + std::string(dtype_name(c.dtype)) +
               "'s overflow, where the forward at shifted inputs or the gradient may rightly be infinite: this "
               "gradient is checked against the reference only";
    r.tolerance = "not run";
    r.time_ms = ms_since(t0);
    return r;
  }
  const double fd_eps = finite_difference_resolution(s, grad, k, direction(2 * fd_step(unit_roundoff(c.dtype)), 0));
  if (std::isfinite(comparison_eps) && !(fd_eps < comparison_eps)) {
    r.verdict = Verdict::skip;
    r.reason_kind = ReasonKind::covered;
    r.reason = "adds no detection: the comparison with the reference catches a gradient scaled by 1 + " +
               format_g(comparison_eps, 2) + ", finite differences of the " + std::string(dtype_name(c.dtype)) +
               " forward only 1 + " + format_g(fd_eps, 2);
    r.tolerance = "not run";
    r.time_ms = ms_since(t0);
    return r;
  }
  const auto& gerr = bounded.grads[static_cast<std::size_t>(k)].err;
  // One pair of steps (t = 1, 1/2) along delta: S, A and their error bounds.
  auto sample = [&](const std::vector<double>& delta, double t) {
    HostTensor plus = x, minus = x;
    for (std::int64_t j = 0; j < x.numel(); ++j) {
      plus.set(j, xd[static_cast<std::size_t>(j)] + t * delta[static_cast<std::size_t>(j)]);
      minus.set(j, xd[static_cast<std::size_t>(j)] - t * delta[static_cast<std::size_t>(j)]);
    }
    HostTensor yp = dev.forward_with(data.inputs, k, plus), ym = dev.forward_with(data.inputs, k, minus);
    if (s.counter) s.counter->backend_evals += 2;
    FdSample fs;
    NoiseSum rounding, allowed;
    double magnitude = 0;  // sum of |terms|: the double-precision accumulation of S and A rounds too
    for (std::int64_t i = 0; i < yp.numel(); ++i) {
      const double vi = data.cotangent.get(i), dyi = yp.get(i) - ym.get(i);
      fs.S += vi * dyi;
      magnitude += std::fabs(vi * dyi);
      const auto ii = static_cast<std::size_t>(i);
      // The bound at the unshifted inputs, but at least the result's own rounding: an operation
      // exact there (x + y of two inputs whose sum is representable) rounds at shifted inputs.
      const double y = static_cast<double>(data.output.v[ii]);
      const double b = std::max(tol.bound(bounded.output.err[ii], y), ulp_of(c.dtype, std::fabs(y)) / 2);
      rounding.add(std::fabs(vi) * 2 * b);
    }
    for (std::int64_t j = 0; j < x.numel(); ++j) {
      const double d = plus.get(j) - minus.get(j);  // the step actually taken, after rounding
      fs.A += grad.get(j) * d;
      magnitude += std::fabs(grad.get(j) * d);
      const auto jj = static_cast<std::size_t>(j);
      allowed.add(std::fabs(d) * tol.bound(gerr[jj], static_cast<double>(gref[jj])));
    }
    fs.R = rounding.bound() + magnitude * static_cast<double>(yp.numel() + x.numel()) * 0x1p-53;
    fs.G = allowed.bound();
    return fs;
  };
  for (int p = 0; p < s.run.numerical.backend_probes; ++p) {
    // The step starts near cbrt(u) and moves by 4x while the judgement says noise or truncation
    // dominates.
    double h = 2 * fd_step(unit_roundoff(c.dtype));
    FdJudgement j;
    for (int attempt = 0; attempt < 4; ++attempt) {
      const std::vector<double> delta = direction(h, p);
      j = judge_richardson(sample(delta, 1.0), sample(delta, 0.5));
      if (!next_fd_step(j, h, 1e-6, 1)) break;
    }
    fold_judgement(j, p, r.metrics, v, reason);
  }
  r.verdict = v;
  r.reason = reason;
  // Where the forward's own rounding noise (its error model) or truncation swamps the signal at
  // every step tried, differences in the case dtype cannot judge the gradient (layer_norm of
  // rows at 1000 +- 0.01 in f32: the forward's condition number is 1e5). The backward check
  // against the reference still does; this check says why it stands aside.
  if (v == Verdict::mistrusted) {
    r.verdict = Verdict::skip;
    r.reason_kind = ReasonKind::covered;
    r.reason = "finite differences of the " + std::string(dtype_name(c.dtype)) +
               " forward cannot resolve this gradient at any step tried (" + reason +
               "): it is judged against the reference alone";
  }
  r.tolerance = "forward and backward error models (" + tol.describe() + ")";
  r.time_ms = ms_since(t0);
  return r;
}

CheckResult surrogate_check(const CaseOnDevice& s, const HostTensor& grad, int k) {
  const Case& c = s.c;
  const ReferenceData& data = s.data;
  const Tolerance& tol = s.tol;
  CheckResult r = blank_result(c, s.device.id, Direction::surrogate, k, s.run.seed);
  ref::RefTensor expected;
  expected.shape = grad.shape();
  const HostTensor& x = data.inputs[static_cast<std::size_t>(k)];
  std::int64_t on_steps = 0, other_side = 0;
  for (std::int64_t j = 0; j < x.numel(); ++j) {
    const double dy = data.cotangent.get(j);
    double g = surrogate_gradient(c.decl.op, x.get(j), dy);  // exact: a copy or a zero
    // Exactly on the surrogate's own step (the gate's -1 and 1) a kernel may take either side:
    // PyTorch's hardtanh backward passes dy only strictly inside, a kernel may write |x| <= 1.
    bool on_step = false;
    for (const double side : {std::nextafter(x.get(j), -HUGE_VAL), std::nextafter(x.get(j), HUGE_VAL)}) {
      const double other = surrogate_gradient(c.decl.op, side, dy);
      if (other == g) continue;
      on_step = true;
      if (grad.get(j) == round_to(c.dtype, other)) {
        g = other;
        ++other_side;
      }
    }
    on_steps += on_step ? 1 : 0;
    expected.v.push_back(g);
  }
  Comparison cmp = compare_to_reference(expected, grad, tol, c.dtype);
  apply_comparison(r, cmp, expected, c.call);
  if (on_steps > 0)
    r.reason = (r.reason.empty() ? "" : r.reason + "; ") + std::to_string(on_steps) +
               " element(s) exactly on the surrogate's step, judged against either side; " +
               std::to_string(other_side) + " took the side the catalog's surrogate does not";
  r.reason = (r.reason.empty() ? "" : r.reason + "; ") + std::string(surrogate_note(c.decl.op));
  r.tolerance = tol.describe();
  return r;
}

}  // namespace

std::vector<CheckResult> check_on_backend(const Case& c, const DeviceContext& device, const ReferenceData& data,
                                          const RunContext& run, const CheckExtras& extras) {
  const std::string& device_id = device.id;
  Backend& backend = *device.backend;
  Queue& queue = *device.queue;
  const std::uint64_t seed = run.seed;
  std::vector<CheckResult> out;
  const bool ftz = backend.info().may_flush_subnormals;
  DeviceCalls dev(c, backend, queue);
  try {
    const MathProfile* math = backend.info().math;
    if (!math) throw Error("backend " + device_id + " reports no math profile (DeviceInfo::math)");
    const Tolerance tol = tolerance_for(c, *math, ftz);
    const ref::Bounded& bounded = data.bounded(math, ftz);
    const CaseOnDevice on{c, device, data, run, tol, bounded, extras.counter};
    auto t0 = Clock::now();
    DeviceCalls::Result results = dev.forward_backward(data.inputs, data.cotangent);
    const double run_ms = ms_since(t0);

    const ReadingContext readings{c, data, tol, math, ftz, &results.grads};
    CheckResult f = blank_result(c, device_id, Direction::forward, -1, seed);
    const std::optional<OtherReadings> read_otherwise =
        judge_other_readings(readings, bounded.output, results.output, -1);
    const ref::RefTensor& expected_output = read_otherwise ? read_otherwise->expected : bounded.output;
    apply_comparison(f, compare_to_reference(expected_output, results.output, tol, c.dtype, inputs_at(c, data)),
                     read_otherwise ? read_otherwise->expected : data.output, c.call);
    f.tolerance = tol.describe();
    f.time_ms = run_ms;
    if (!tol.loosened.empty() && f.verdict == Verdict::pass) f.reason = "tolerance loosened: " + tol.loosened;
    if (read_otherwise && f.verdict == Verdict::pass && f.reason.empty()) f.reason = read_otherwise->describe();
    out.push_back(std::move(f));

    for (int k = 0; k < static_cast<int>(data.inputs.size()); ++k) {
      if (!input_is_differentiable(c.decl.op, k)) continue;
      const HostTensor& g = results.grads[static_cast<std::size_t>(k)];
      const HostTensor& g_again = results.grads_again[static_cast<std::size_t>(k)];
      if (op_is_straight_through(c.decl.op)) {
        out.push_back(surrogate_check(on, g, k));
        require_repeatable(out.back(), g, g_again);
        continue;
      }
      CheckResult b = blank_result(c, device_id, Direction::backward, k, seed);
      const auto& contract = bounded.grads[static_cast<std::size_t>(k)];
      const std::optional<OtherReadings> other = judge_other_readings(readings, contract, g, k);
      const ref::RefTensor& expected = other ? other->expected : contract;
      apply_comparison(b, compare_to_reference(expected, g, tol, c.dtype, inputs_at(c, data)), expected, c.call);
      if (other && b.verdict == Verdict::pass && b.reason.empty()) b.reason = other->describe();
      b.tolerance = tol.describe();
      if (tol.backward_from_output) b.formulation = kBackwardFromOutput;
      b.time_ms = run_ms;
      require_repeatable(b, g, g_again);
      // Where the comparison proves nothing (a mistrusted, all-zero reference) every
      // finite-difference check adds detection.
      const double cmp = b.verdict == Verdict::pass ? comparison_resolution(tol, expected, g)
                                                    : std::numeric_limits<double>::infinity();
      out.push_back(std::move(b));
      if (dtype_size(c.dtype) == 2) {
        CheckResult n = blank_result(c, device_id, Direction::numerical_backend, k, seed);
        n.verdict = Verdict::skip;
        n.reason_kind = ReasonKind::covered;
        n.reason = "a 16-bit forward cannot resolve finite differences (u = " +
                   std::string(c.dtype == DType::f16 ? "2^-11" : "2^-8") +
                   "): this gradient is checked against the reference only";
        out.push_back(std::move(n));
      } else {
        out.push_back(numerical_backend_check(on, dev, g, k, cmp));
      }
    }
    fail_on_device_reports(backend, out.front());
    if (extras.keep) {
      extras.keep->output = std::move(results.output);
      extras.keep->grads = std::move(results.grads);
    }
  } catch (const std::exception& e) {
    out.clear();
    out.push_back(device_error_result(c, device_id, seed, e));
  }
  return out;
}

}  // namespace gp
