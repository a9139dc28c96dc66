#include "harness/audit/model_selftest.hpp"

#include <set>

namespace gp {

namespace {

// The subject's checks on `backend`, the first failing one described; empty when all pass.
std::string first_failure(const PreparedSubject& prepared, const std::string& device_id, Backend& backend,
                          const RunContext& run) {
  auto queue = backend.create_queue();
  for (const CheckResult& r : prepared.check_on(DeviceContext{device_id, &backend, queue.get()}, run))
    if (r.verdict == Verdict::fail || r.verdict == Verdict::error)
      return check_label(r) + ": " + r.reason.substr(0, 160);
  return {};
}

}  // namespace

ModelSelftest selftest_model(const CompositeSubject& s, const SelectedDevice& device, Backend& backend,
                             const SelftestOptions& o) {
  const Composite& c = s.composite();
  const RunContext run{o.seed, o.numerical};
  ModelSelftest out;
  out.subject = &s;
  const std::unique_ptr<PreparedSubject> prepared = s.prepare(run);
  out.baseline_problem = first_failure(*prepared, device.id, backend, run);
  if (!out.baseline_problem.empty()) return out;
  std::set<OpKind> seen;
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i)
    if (seen.insert(c.decl.nodes[i].op).second) out.nodes.push_back(i);
  for (std::size_t i : out.nodes) {
    const NodeDecl& n = c.decl.nodes[i];
    for (Fault f : fault_set(c.dtype)) {
      f.target = c.calls[i].case_id;
      NodeFault r;
      r.node = i;
      r.label = "node " + std::to_string(i) + " " + std::string(op_name(n.op)) + " (" + n.layer + ")";
      r.fault = f;
      auto faulty = make_faulty_backend(backend, f);
      r.evidence = first_failure(*prepared, device.id, *faulty, run);
      r.caught = !r.evidence.empty();
      out.outcomes.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace gp
