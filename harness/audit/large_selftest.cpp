#include "harness/audit/large_selftest.hpp"

#include <algorithm>

#include "harness/check/text.hpp"
#include "harness/large/sampled_reference.hpp"
#include "harness/large/sampled_subject.hpp"
#include "results/result.hpp"

namespace gp {

std::vector<Fault> large_fault_set(double epsilon) {
  return {{FaultClass::element_perturbed, epsilon},
          {FaultClass::edge_tile_wrong, 0},
          {FaultClass::last_workgroup_dropped, 0},
          {FaultClass::index_wrapped, 0}};
}

namespace {

// The case's sampled and complete checks on `backend`, the first failing one described; empty
// when all pass.
std::string first_failure(const Case& c, const SelectedDevice& device, Backend& backend,
                          const SampledReference& reference, const RunContext& run) {
  auto queue = backend.create_queue();
  for (const CheckResult& r : check_sampled_on_backend(c, {device.id, &backend, &*queue}, reference, run))
    if (r.verdict == Verdict::fail || r.verdict == Verdict::error)
      return check_label(r) + ": " + r.reason.substr(0, 160);
  return {};
}

}  // namespace

LargeSelftest selftest_large_case(const Case& c, const SelectedDevice& device, Backend& backend,
                                  const LargeSelftestOptions& o) {
  LargeSelftest out;
  out.c = &c;
  const SampledReference reference = prepare_sampled_reference(c, o.run);
  out.baseline_problem = first_failure(c, device, backend, reference, o.run);
  if (!out.baseline_problem.empty()) return out;
  std::int64_t largest = 0;
  for (const SampledTensor& t : reference.tensors) largest = std::max(largest, t.numel);
  // element_perturbed once per checked tensor, so that each rate is that tensor's checks'.
  std::vector<std::pair<Fault, std::string>> faults;
  for (const Fault& fault : large_fault_set(o.epsilon)) {
    if (fault.kind != FaultClass::element_perturbed) {
      faults.emplace_back(fault, "");
      continue;
    }
    for (const SampledTensor& t : reference.tensors) {
      const bool output = t.tensor == ref::kOutputTensor;
      Fault f = fault;
      f.tensor = output ? 0 : 1 + t.tensor;
      faults.emplace_back(f, output ? "output" : "gradient " + std::to_string(t.tensor));
    }
  }
  for (const auto& [fault, tensor] : faults) {
    LargeFaultOutcome r;
    r.fault = fault;
    r.tensor = tensor;
    // The sample holds every tile boundary and the last elements: a check set that misses these
    // is broken. One element anywhere is a rate: the complete checks see it, the sample alone
    // only where it falls.
    r.must_catch = fault.kind != FaultClass::element_perturbed;
    if (fault.kind == FaultClass::index_wrapped && largest <= kIndexWrap) {
      r.evidence = "no tensor past 2^31 elements (the largest has " + std::to_string(largest) + ")";
      out.faults.push_back(std::move(r));
      continue;
    }
    // x (1 + epsilon) rounds back to x wherever epsilon is at most the dtype's unit roundoff
    // (bf16's is 2^-8): the stored value does not change.
    if (fault.kind == FaultClass::element_perturbed && fault.epsilon <= unit_roundoff(c.dtype)) {
      r.evidence = format_g(fault.epsilon) + " is within " + std::string(dtype_name(c.dtype)) +
                   "'s unit roundoff: the perturbed value rounds back to itself";
      out.faults.push_back(std::move(r));
      continue;
    }
    const int trials = fault.kind == FaultClass::element_perturbed ? o.positions : 1;
    for (int t = 0; t < trials; ++t) {
      Fault f = fault;
      f.trial = o.run.seed * 1000003 + static_cast<std::uint64_t>(t);
      auto faulty = make_faulty_backend(backend, f);
      const std::string why = first_failure(c, device, *faulty, reference, o.run);
      ++r.trials;
      if (why.empty()) continue;
      ++r.caught;
      if (r.evidence.empty()) r.evidence = why;
    }
    out.faults.push_back(std::move(r));
  }
  return out;
}

}  // namespace gp
