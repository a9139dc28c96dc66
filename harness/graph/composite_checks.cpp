// A composite on one backend: the device run, the end-to-end comparisons, then the node-by-node
// and numerical checks (composite_nodes.cpp, composite_numerical.cpp).
#include "harness/graph/composite_checks.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/poison.hpp"
#include "harness/check/tolerance.hpp"

namespace gp {

CheckResult blank_composite_result(const Composite& c, const std::string& device_id, Direction d,
                                   const std::string& part, std::uint64_t seed) {
  CheckResult r;
  r.case_id = c.id;
  r.op = c.decl.model;
  r.family = "model";
  r.subject = c.decl.training ? SubjectKind::training : SubjectKind::model;
  r.backend = device_id;
  r.dtype = c.dtype;
  r.direction = d;
  r.part = part;
  r.seed = seed;
  const std::string backend = device_id == "reference" ? "cpu" : device_id;
  r.repro = "gradparity repro '" + c.id + "' --backend " + backend + " --seed " + std::to_string(seed);
  return r;
}

Tolerance composite_tolerance(const Composite& c, const Backend& backend) {
  return tolerance_for(c.leaf_case(), *backend.info().math, backend.info().may_flush_subnormals);
}

namespace {

// `expected` against `got`, into `r` (a blank result naming the part).
CheckResult compared(const Composite& c, CheckResult r, const ref::RefTensor& expected, const HostTensor& got,
                     const Tolerance& tol) {
  const Direction d = r.direction;
  Comparison cmp = compare_to_reference(expected, got, tol, c.dtype);
  r.metrics = cmp.metrics;
  r.verdict = cmp.verdict;
  r.reason = cmp.reason;
  r.tolerance = "bound propagated through the graph: " + tol.describe();
  if (r.verdict == Verdict::pass)
    if (std::string why = mistrust_reason(expected, false); !why.empty()) {
      r.verdict = Verdict::mistrusted;
      r.reason = why;
    }
  if (r.verdict == Verdict::pass && !c.surrogates.empty() && d == Direction::backward) {
    r.reason = "through the declared surrogate gradient of";
    for (const auto& s : c.surrogates) r.reason += " " + s;
  }
  return r;
}

}  // namespace

std::vector<CheckResult> check_end_to_end(const Composite& c, const std::string& device_id, const Tolerance& tol,
                                          const GraphTensors& bounded, const DeviceGraph& d, std::uint64_t seed) {
  std::vector<CheckResult> out;
  auto blank = [&](Direction dir, const std::string& part) {
    return blank_composite_result(c, device_id, dir, part, seed);
  };
  out.push_back(compared(c, blank(Direction::forward, "output " + c.decl.output), bounded.value.at(c.decl.output),
                         d.output, tol));
  // The report's Models section reads what the model computes from here (reports/models.hpp).
  out.back().formulation = c.decl.formulation;
  ref::RefTensor loss = bounded.value.at(c.decl.loss);
  loss.err.assign(1, bounded.loss_err);
  out.push_back(compared(c, blank(Direction::forward, "loss"), loss, d.loss, tol));
  for (const auto& l : c.decl.leaves) {
    auto got = d.grads.find(l.name);
    auto expected = bounded.grad.find(l.name);
    if (expected == bounded.grad.end()) continue;
    if (got == d.grads.end()) throw Error(c.id + ": the device graph gave no gradient of " + l.name);
    out.push_back(compared(c, blank(Direction::backward, "grad " + l.name), expected->second, got->second, tol));
  }
  return out;
}

namespace {

// A second run of the whole graph into fresh (poisoned) buffers must repeat every bit of every
// gradient: a kernel that keeps state between calls, or reads what it should overwrite, does not.
void require_repeatable(const DeviceGraph& first, const DeviceGraph& again, std::vector<CheckResult>& checks) {
  for (CheckResult& r : checks) {
    if (r.direction != Direction::backward || r.part.rfind("grad ", 0) != 0) continue;
    const std::string leaf = r.part.substr(5);
    const std::int64_t i = first_bitwise_difference(first.grads.at(leaf), again.grads.at(leaf));
    if (i < 0) continue;
    const std::string why = "a second backward of the graph differs at index " + std::to_string(i);
    r.reason = r.verdict == Verdict::fail ? why + "; " + r.reason : why;
    r.verdict = Verdict::fail;
  }
}

// d loss = 0 must give gradients that are exactly zero, every element of every leaf: the
// KAN GPU suite's explicit expectation (a zero reference is no reason to mistrust this check).
CheckResult zero_gradient_check(const Composite& c, const std::string& device_id, const DeviceGraph& d,
                                std::uint64_t seed) {
  CheckResult r = blank_composite_result(c, device_id, Direction::backward, "grads at d loss = 0", seed);
  r.tolerance = "exactly zero";
  for (const auto& [leaf, g] : d.grads) {
    r.metrics.elements += g.numel();
    for (std::int64_t i = 0; i < g.numel(); ++i) {
      const double v = g.get(i);
      if (v == 0) continue;
      r.metrics.max_abs = std::isnan(v) ? v : std::max(r.metrics.max_abs, std::fabs(v));
      if (r.verdict == Verdict::pass) {
        r.verdict = Verdict::fail;
        r.reason = "grad " + leaf + " is " + std::to_string(v) + " at index " + std::to_string(i) +
                   " where d loss = 0 (every gradient must be exactly zero)";
      }
    }
  }
  return r;
}

}  // namespace

Support supports_calls(Backend& backend, const std::vector<OpCall>& calls) {
  // Every missing op at once, each with its first reason: named one at a time, a plugin author
  // adds linear, runs again, learns of cross_entropy, and so on.
  std::vector<OpKind> missing;
  std::string reasons;
  for (const OpCall& call : calls) {
    if (std::find(missing.begin(), missing.end(), call.kind) != missing.end()) continue;
    if (Support s = backend.supports(call); !s.ok) {
      missing.push_back(call.kind);
      reasons += (reasons.empty() ? "" : "; ") + std::string(op_name(call.kind)) + ": " + s.reason;
    }
  }
  if (missing.empty()) return {};
  return {false, missing.size() == 1 ? reasons : std::to_string(missing.size()) + " ops missing: " + reasons};
}

std::vector<CheckResult> guarded_composite_checks(const Composite& c, const std::vector<OpCall>& calls,
                                                  const std::string& device_id, Backend& backend, std::uint64_t seed,
                                                  const std::function<std::vector<CheckResult>()>& checks) {
  auto single = [&](const std::string& why, Verdict v, ReasonKind kind) {
    CheckResult e = blank_composite_result(c, device_id, Direction::forward, "", seed);
    e.verdict = v;
    e.reason_kind = kind;
    e.reason = why;
    return std::vector<CheckResult>{e};
  };
  if (Support s = supports_calls(backend, calls); !s.ok)
    return single(s.reason, Verdict::skip, ReasonKind::unsupported);
  try {
    if (!backend.info().math) throw Error("backend " + device_id + " reports no math profile (DeviceInfo::math)");
    return checks();
  } catch (const DeviceLost&) {
    throw;
  } catch (const std::exception& e) {
    return single(e.what(), Verdict::error, ReasonKind::device_error);
  }
}

std::vector<CheckResult> check_composite_on_backend(const Composite& c, const std::string& device_id, Backend& backend,
                                                    Queue& queue, const CompositeReference& r, std::uint64_t seed) {
  auto failure = [&](const std::string& why) {
    CheckResult e = blank_composite_result(c, device_id, Direction::forward, "", seed);
    e.verdict = Verdict::fail;
    e.reason = why;
    return e;
  };
  return guarded_composite_checks(c, device_calls_of(c), device_id, backend, seed, [&] {
    const MathProfile* math = backend.info().math;
    const Tolerance tol = composite_tolerance(c, backend);
    const GraphTensors& bounded = r.bounded(c, math, backend.info().may_flush_subnormals);
    const auto t0 = std::chrono::steady_clock::now();
    const DeviceGraph d = run_graph_on_device(c, backend, queue, r.leaves);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::vector<CheckResult> out = check_end_to_end(c, device_id, tol, bounded, d, seed);
    for (auto& x : out) x.time_ms = ms;
    require_repeatable(d, run_graph_on_device(c, backend, queue, r.leaves), out);
    out.push_back(
        zero_gradient_check(c, device_id, run_graph_on_device(c, backend, queue, r.leaves, {.d_loss = 0.0}), seed));
    for (auto& x : check_nodes(c, device_id, backend, queue, r, seed)) out.push_back(std::move(x));
    out.push_back(check_composite_numerics_on_backend(c, {device_id, &backend, &queue}, r, d, tol, seed));
    for (const auto& v : backend.take_canary_violations()) out.push_back(failure("out-of-bounds write: " + v));
    for (const auto& m : backend.take_validation_messages()) out.push_back(failure("validation message: " + m));
    return out;
  });
}

}  // namespace gp
