#include "harness/audit/selftest.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/check/text.hpp"
#include "harness/check/tolerance.hpp"

namespace gp {

std::vector<Fault> fault_set(DType dtype) {
  std::vector<Fault> f;
  for (double e : {1e-2, 1e-3, 1e-4, 1e-5}) f.push_back({FaultClass::gradient_scaled, e});
  if (dtype == DType::f64)
    for (double e : {1e-8, 1e-11}) f.push_back({FaultClass::gradient_scaled, e});
  for (FaultClass k : {FaultClass::sign_flipped, FaultClass::element_zeroed, FaultClass::last_element_dropped,
                       FaultClass::last_row_dropped, FaultClass::gradients_crossed})
    f.push_back({k, 0});
  f.push_back({FaultClass::forward_scaled, dtype == DType::f64 ? 1e-8 : 1e-2});
  if (dtype == DType::f16 || dtype == DType::bf16) f.push_back({FaultClass::double_rounded, 0});
  return f;
}

bool must_catch(const Fault& f, DType dtype) {
  const bool wide = dtype == DType::f32 || dtype == DType::f64;
  switch (f.kind) {
    case FaultClass::gradient_scaled:
    case FaultClass::forward_scaled:
      return wide && f.epsilon >= (dtype == DType::f64 ? 1e-8 : 1e-2);
    case FaultClass::double_rounded:
      return false;
    default:
      return true;
  }
}

namespace {

// The checks of the case on `backend`, first failing one described; empty when all pass.
std::string first_failure(const Case& c, const SelectedDevice& device, Backend& backend, const ReferenceData& data,
                          const SelftestOptions& o) {
  auto queue = backend.create_queue();
  for (const CheckResult& r : check_on_backend(c, {device.id, &backend, &*queue}, data, {o.seed, o.numerical})) {
    if (r.verdict == Verdict::fail || r.verdict == Verdict::error)
      return check_label(r) + ": " + r.reason.substr(0, 160);
  }
  return {};
}

bool caught_at(const Case& c, const SelectedDevice& device, Backend& inner, const ReferenceData& data,
               const SelftestOptions& o, const Fault& f) {
  auto faulty = make_faulty_backend(inner, f);
  return !first_failure(c, device, *faulty, data, o).empty();
}

// Why a fault cannot change this case's results at all, or empty when it can.
std::string not_applicable(const Case& c, const ReferenceData& data, const Fault& f) {
  const auto zero = [](const ref::RefTensor& t) {
    return std::all_of(t.v.begin(), t.v.end(), [](long double v) { return v == 0; });
  };
  // Every op has a forward, a forward-only one too; a scaling changes no zero (a sum over no
  // element, an empty tensor).
  if (f.kind == FaultClass::forward_scaled) return zero(data.output) ? "the forward result is zero or empty" : "";
  std::vector<int> differentiable;  // the gradients with an element (an empty tensor's has none)
  for (int k = 0; k < static_cast<int>(data.grads.size()); ++k)
    if (!data.grads[static_cast<std::size_t>(k)].v.empty()) differentiable.push_back(k);
  if (differentiable.empty()) return "no gradient element";
  if (f.kind == FaultClass::gradient_scaled && std::all_of(differentiable.begin(), differentiable.end(), [&](int k) {
        return zero(data.grads[static_cast<std::size_t>(k)]);
      }))
    return "the gradients are zero";
  const auto& g0 = data.grads[static_cast<std::size_t>(differentiable[0])];
  switch (f.kind) {
    case FaultClass::sign_flipped:
    case FaultClass::element_zeroed: {
      long double largest = 0;
      for (auto v : g0.v) largest = std::max(largest, std::fabs(v));
      return largest == 0 ? "the gradient is zero" : "";
    }
    case FaultClass::last_row_dropped:
      return g0.shape.rank() < 2 ? "the gradient has no rows" : "";
    case FaultClass::gradients_crossed:
      for (std::size_t i = 1; i < differentiable.size(); ++i) {
        const auto& gi = data.grads[static_cast<std::size_t>(differentiable[i])];
        if (gi.shape != g0.shape) continue;
        for (std::size_t j = 0; j < gi.v.size(); ++j)
          if (std::fabs(gi.v[j] - g0.v[j]) > 1e-3L * (std::fabs(g0.v[j]) + std::fabs(gi.v[j]))) return "";
        return "the gradients that could be crossed are equal";
      }
      return "no two gradients of one shape";
    case FaultClass::double_rounded:
      return c.dtype == DType::f16 || c.dtype == DType::bf16 ? "" : "not a 16-bit dtype";
    default:
      return "";
  }
}

// The smallest relative bound of the case's forward (or of every gradient) on this device: a
// scaling by (1 + eps) is resolvable only where eps exceeds it. Rows at 1000 + N(0, 0.01) in f32
// have variance bounds of several percent (the mean's rounding enters squared): no sound check
// catches a 1% scaling there.
double relative_resolution(const Case& c, const Backend& backend, const ReferenceData& data, bool forward) {
  const DeviceInfo& info = backend.info();
  if (!info.math) return 0;
  const Tolerance tol = tolerance_for(c, *info.math, info.may_flush_subnormals);
  const ref::Bounded& b = data.bounded(info.math, info.may_flush_subnormals);
  double best = std::numeric_limits<double>::infinity();
  auto scan = [&](const ref::RefTensor& t) {
    for (std::size_t i = 0; i < t.v.size() && i < t.err.size(); ++i)
      if (t.v[i] != 0) {
        const double v = static_cast<double>(t.v[i]);
        best = std::min(best, tol.bound(t.err[i], v) / std::fabs(v));
      }
  };
  if (forward)
    scan(b.output);
  else
    for (const auto& g : b.grads) scan(g);
  return best;
}

// Sign flip and zeroing hit the gradient's largest element (fault_injection.cpp): they change it
// by 2|g| and |g|. Where the bound there is as large (bf16 logsumexp of logits near 130, whose
// backward may take exp(x - y) from a stored y rounded by 0.5), no sound check sees them.
std::string structural_resolution(const Case& c, const Backend& backend, const ReferenceData& data, const Fault& f) {
  const DeviceInfo& info = backend.info();
  if (!info.math || (f.kind != FaultClass::sign_flipped && f.kind != FaultClass::element_zeroed)) return {};
  const ref::Bounded& b = data.bounded(info.math, info.may_flush_subnormals);
  for (std::size_t k = 0; k < b.grads.size(); ++k) {
    const ref::RefTensor& g = b.grads[k];
    if (g.v.empty()) continue;
    std::size_t at = 0;
    for (std::size_t i = 1; i < g.v.size(); ++i)
      if (std::fabs(g.v[i]) > std::fabs(g.v[at])) at = i;
    const double v = static_cast<double>(g.v[at]);
    const double bound = tolerance_for(c, *info.math, info.may_flush_subnormals).bound(g.err[at], v);
    const double change = (f.kind == FaultClass::sign_flipped ? 2 : 1) * std::fabs(v);
    if (change > bound) return {};
    return "not required: the bound at the gradient's largest element (" + format_g(bound) + ") exceeds the change (" +
           format_g(change) + ")";
  }
  return {};
}

double find_epsilon_star(const Case& c, const SelectedDevice& device, Backend& inner, const ReferenceData& data,
                         const SelftestOptions& o) {
  auto caught = [&](double log_eps) {
    return caught_at(c, device, inner, data, o, {FaultClass::gradient_scaled, std::pow(10.0, log_eps)});
  };
  double lo = -16, hi = 0;  // 10^lo is below every dtype's resolution
  if (!caught(hi)) return std::numeric_limits<double>::infinity();
  while (hi - lo > 0.18) {  // log10(1.5)
    const double mid = (lo + hi) / 2;
    (caught(mid) ? hi : lo) = mid;
  }
  return std::pow(10.0, hi);
}

}  // namespace

CaseSelftest selftest_case(const Case& c, const SelectedDevice& device, Backend& backend, const SelftestOptions& o) {
  CaseSelftest out;
  out.c = &c;
  const ReferenceData data = prepare_reference(c, o.seed);
  out.baseline_problem = first_failure(c, device, backend, data, o);
  if (!out.baseline_problem.empty()) return out;
  for (const Fault& f : fault_set(c.dtype)) {
    FaultOutcome r;
    r.fault = f;
    r.must_catch = must_catch(f, c.dtype);
    r.evidence = not_applicable(c, data, f);
    r.applies = r.evidence.empty();
    if (r.must_catch && r.applies) r.resolution_note = structural_resolution(c, backend, data, f);
    if (!r.resolution_note.empty()) r.must_catch = false;
    if (r.must_catch && r.applies && (f.kind == FaultClass::gradient_scaled || f.kind == FaultClass::forward_scaled)) {
      const double res = relative_resolution(c, backend, data, f.kind == FaultClass::forward_scaled);
      if (f.epsilon < 2 * res) {
        r.must_catch = false;
        r.resolution_note = "not required: the tightest bound of these results is " + format_g(res) +
                            " of the value, more than half of eps";
      }
    }
    if (r.applies) {
      auto faulty = make_faulty_backend(backend, f);
      r.evidence = first_failure(c, device, *faulty, data, o);
      r.caught = !r.evidence.empty();
      if (!r.caught) r.evidence = r.resolution_note;
    }
    out.faults.push_back(std::move(r));
  }
  out.epsilon_star = not_applicable(c, data, {FaultClass::gradient_scaled, 1}).empty()
                         ? find_epsilon_star(c, device, backend, data, o)
                         : 0;
  return out;
}

}  // namespace gp
