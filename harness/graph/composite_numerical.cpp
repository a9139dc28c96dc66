// Numerical checks of a composite: directional finite differences of the whole loss along a
// random perturbation of every leaf that gets a gradient, against the analytic gradients, with
// the Richardson split of harness/check/numerical.hpp. On the reference in long double (is the
// reference's chain rule right?) and on the backend with its own forward in its dtype.
#include <chrono>
#include <cmath>
#include <functional>

#include "harness/check/numerical.hpp"
#include "harness/graph/composite.hpp"
#include "harness/graph/composite_checks.hpp"

namespace gp {

namespace {

// What one side (reference or backend) gives the finite-difference check.
struct FdSide {
  // The loss at perturbed leaves (long double values; the backend's are values of its dtype).
  std::function<long double(const std::vector<ref::RefTensor>&)> loss_at;
  std::function<double(std::size_t leaf, std::int64_t j)> grad;        // its analytic gradient
  std::function<double(std::size_t leaf, std::int64_t j)> grad_bound;  // that gradient's error bound
  double loss_bound = 0;                                               // one loss evaluation's error bound
  double unit_roundoff = 0;                                            // of the arithmetic S and A are summed in
  bool rounds_steps = false;  // perturbed leaves are rounded to the dtype (the backend's)
  DType dtype = DType::f64;
};

std::string surrogate_reason(const Composite& c) {
  std::string names;
  for (const auto& s : c.surrogates) names += (names.empty() ? "" : ", ") + s;
  return "the gradient flows through the declared surrogate of " + names +
         ": finite differences of the forward do not measure it (checked end to end and node by node)";
}

CheckResult finite_differences(const Composite& c, CheckResult r, const CompositeReference& ref, const FdSide& side,
                               double step_unit) {
  const auto t0 = std::chrono::steady_clock::now();
  const Case leaves = c.leaf_case();
  // Each leaf at its own scale (Domain::fd_length: a parameter's initial range), components with
  // the signs of the reference gradient: the signal sum |g_i d_i| then grows like the number of
  // leaves, while the gradients' allowed error (G, itself proportional to the step) does not
  // outgrow it. With random signs the signal cancelled down to the allowance now and then
  // (2 of 38 models at seed 6: MISTRUSTED at every step). Coherent components add up over a
  // layer's inputs, so the step starts small (below) and grows only while noise dominates.
  auto direction = [&](double h) {
    std::vector<std::vector<double>> delta(c.decl.leaves.size());
    for (std::size_t k = 0; k < delta.size(); ++k) {
      auto g = ref.exact.grad.find(c.decl.leaves[k].name);
      if (!c.decl.leaves[k].gradient || g == ref.exact.grad.end()) continue;
      delta[k] = fd_direction(leaves, static_cast<int>(k), ref.leaves[k].to_doubles(), h, r.seed, "composite-probe");
      for (std::size_t j = 0; j < delta[k].size(); ++j)
        delta[k][j] = g->second.v[j] < 0 ? -std::fabs(delta[k][j]) : std::fabs(delta[k][j]);
    }
    return delta;
  };
  // Steps are taken in long double on the reference, in the dtype on the backend; either way A
  // uses the step actually taken. A rounded step is mirrored (x - (round(x + t delta) - x)): two
  // roundings of their own would make it asymmetric, and the second-order term of an asymmetric
  // central difference is linear in the step, which the Richardson split reads as a gradient
  // error (the long-double reference failed by 2x on f32 leaves before).
  auto sample = [&](const std::vector<std::vector<double>>& delta, double t) {
    std::vector<ref::RefTensor> plus, minus;
    for (const auto& leaf : ref.leaves) plus.push_back(ref::RefTensor::from_host(leaf));
    minus = plus;
    FdSample s;
    NoiseSum allowed;
    double magnitude = 0;
    for (std::size_t k = 0; k < delta.size(); ++k)
      for (std::size_t j = 0; j < delta[k].size(); ++j) {
        const long double x = plus[k].v[j];
        long double p = x + static_cast<long double>(t * delta[k][j]);
        long double m = x - static_cast<long double>(t * delta[k][j]);
        if (side.rounds_steps) {
          p = round_to(side.dtype, static_cast<double>(p));
          m = round_to(side.dtype, static_cast<double>(x - (p - x)));
        }
        plus[k].v[j] = p;
        minus[k].v[j] = m;
        const double d = static_cast<double>(p - m);
        const auto jj = static_cast<std::int64_t>(j);
        s.A += side.grad(k, jj) * d;
        magnitude += std::fabs(side.grad(k, jj) * d);
        allowed.add(std::fabs(d) * side.grad_bound(k, jj));
      }
    const long double lp = side.loss_at(plus), lm = side.loss_at(minus);
    s.S = static_cast<double>(lp - lm);
    s.R = 2 * side.loss_bound + side.unit_roundoff * (std::fabs(static_cast<double>(lp)) + magnitude);
    s.G = allowed.bound();
    return s;
  };
  // A quarter of the primitives' first step: the coherent direction moves a pre-activation by
  // about the step times the layer's fan-in, and the truncation must stay cubic in the step.
  double h = fd_step(step_unit) / 4;
  FdJudgement j;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const auto delta = direction(h);
    j = judge_richardson(sample(delta, 1.0), sample(delta, 0.5));
    if (!next_fd_step(j, h, 1e-6, 1)) break;
  }
  Verdict v = Verdict::pass;
  std::string reason;
  fold_judgement(j, 0, r.metrics, v, reason);
  r.verdict = v;
  r.reason = reason;
  r.tolerance = "Richardson split of directional differences of the loss (" + std::string(dtype_name(c.dtype)) +
                " step " + std::to_string(h) + ")";
  r.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

std::vector<CheckResult> check_composite_reference(const Composite& c, const CompositeReference& r,
                                                   std::uint64_t seed) {
  CheckResult res = blank_composite_result(c, "reference", Direction::numerical_reference, "loss gradient", seed);
  if (!c.surrogates.empty()) {
    res.verdict = Verdict::skip;
    res.reason_kind = ReasonKind::covered;
    res.reason = surrogate_reason(c);
    return {res};
  }
  // The reference's own rounding (Tracked in long-double arithmetic), with room as for primitives.
  constexpr double kSelfSafety = 4;
  const GraphTensors& self = r.bounded(c, nullptr, false);
  FdSide side;
  side.loss_at = [&](const std::vector<ref::RefTensor>& leaves) {
    return evaluate_graph(c, leaves, exact_node_ops(), false).value.at(c.decl.loss).v[0];
  };
  side.grad = [&](std::size_t k, std::int64_t j) {
    return static_cast<double>(r.exact.grad.at(c.decl.leaves[k].name).v[static_cast<std::size_t>(j)]);
  };
  side.grad_bound = [&](std::size_t k, std::int64_t j) {
    return kSelfSafety * propagated_error(self.grad.at(c.decl.leaves[k].name).err[static_cast<std::size_t>(j)]);
  };
  side.loss_bound = kSelfSafety * propagated_error(self.loss_err);
  side.unit_roundoff = 0x1p-52;  // S and A are summed in double
  return {finite_differences(c, res, r, side, 0x1p-64)};
}

CheckResult check_composite_numerics_on_backend(const Composite& c, const DeviceContext& device,
                                                const CompositeReference& r, const DeviceGraph& d, const Tolerance& tol,
                                                std::uint64_t seed) {
  Backend& backend = *device.backend;
  Queue& queue = *device.queue;
  CheckResult res = blank_composite_result(c, device.id, Direction::numerical_backend, "loss gradient", seed);
  if (!c.surrogates.empty() || dtype_size(c.dtype) == 2) {
    res.verdict = Verdict::skip;
    res.reason_kind = ReasonKind::covered;
    res.reason = !c.surrogates.empty() ? surrogate_reason(c)
                                       : "a 16-bit forward cannot resolve finite differences: the gradients are "
                                         "checked against the reference end to end and node by node";
    return res;
  }
  const GraphTensors& b = r.bounded(c, backend.info().math, backend.info().may_flush_subnormals);
  FdSide side;
  side.loss_at = [&](const std::vector<ref::RefTensor>& leaves) {
    std::vector<HostTensor> host = r.leaves;  // dtypes and shapes; values replaced (exact: rounded steps)
    for (std::size_t k = 0; k < host.size(); ++k)
      for (std::int64_t i = 0; i < host[k].numel(); ++i)
        host[k].set(i, static_cast<double>(leaves[k].v[static_cast<std::size_t>(i)]));
    return static_cast<long double>(run_graph_on_device(c, backend, queue, host, {.backward = false}).loss.get(0));
  };
  side.rounds_steps = true;
  side.dtype = c.dtype;
  side.grad = [&](std::size_t k, std::int64_t j) { return d.grads.at(c.decl.leaves[k].name).get(j); };
  side.grad_bound = [&](std::size_t k, std::int64_t j) {
    const ref::RefTensor& g = b.grad.at(c.decl.leaves[k].name);
    const auto jj = static_cast<std::size_t>(j);
    return tol.bound(g.err[jj], static_cast<double>(g.v[jj]));
  };
  side.loss_bound = tol.bound(b.loss_err, static_cast<double>(b.value.at(c.decl.loss).v[0]));
  side.unit_roundoff = 0x1p-52;
  return finite_differences(c, res, r, side, unit_roundoff(c.dtype));
}

}  // namespace gp
