#include "harness/audit/model_selftest.hpp"

#include <cstring>
#include <set>

namespace gp {

namespace {

// The subject's failing checks on `backend`.
std::vector<CheckResult> failures(const PreparedSubject& prepared, const std::string& device_id, Backend& backend,
                                  const RunContext& run) {
  auto queue = backend.create_queue();
  std::vector<CheckResult> out;
  for (CheckResult& r : prepared.check_on(DeviceContext{device_id, &backend, queue.get()}, run))
    if (r.verdict == Verdict::fail || r.verdict == Verdict::error) out.push_back(std::move(r));
  return out;
}

std::string described(const CheckResult& r) { return check_label(r) + ": " + r.reason.substr(0, 160); }

// What every fault of one model's selftest runs against.
struct Bench {
  const Composite& c;
  const PreparedSubject& prepared;
  const std::string& device_id;
  Backend& backend;
  const RunContext& run;
  std::vector<HostTensor> clean;  // what the unfaulted device computes
};

std::vector<HostTensor> computed(const PreparedSubject& prepared, const std::string& device_id, Backend& backend) {
  auto queue = backend.create_queue();
  return prepared.run_on(DeviceContext{device_id, &backend, queue.get()});
}

bool same_bytes(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].bytes() != b[i].bytes() || std::memcmp(a[i].data(), b[i].data(), a[i].bytes()) != 0) return false;
  return true;
}

// One fault on one node: caught or not, and whether the node checks point at that node.
NodeFault fault_one_node(const Bench& b, std::size_t node, Fault f) {
  const Composite& c = b.c;
  const NodeDecl& n = c.decl.nodes[node];
  f.target = c.calls[node].case_id;
  NodeFault r;
  r.node = node;
  r.label = "node " + std::to_string(node) + " " + std::string(op_name(n.op)) + " (" + n.layer + ")";
  r.fault = f;
  auto faulty = make_faulty_backend(b.backend, f);
  const std::vector<CheckResult> failed = failures(b.prepared, b.device_id, *faulty, b.run);
  r.caught = !failed.empty();
  if (r.caught) r.evidence = described(failed.front());
  if (!r.caught) r.changes = !same_bytes(computed(b.prepared, b.device_id, *faulty), b.clean);
  for (const CheckResult& x : failed) {
    if (x.direction != Direction::node) continue;
    if (x.part.rfind(r.label + " ", 0) == 0)
      r.at_node = true;
    else if (r.elsewhere.empty())
      r.elsewhere = described(x);
  }
  return r;
}

}  // namespace

ModelSelftest selftest_model(const CompositeSubject& s, const SelectedDevice& device, Backend& backend,
                             const SelftestOptions& o) {
  const Composite& c = s.composite();
  const RunContext run{o.seed, o.numerical};
  ModelSelftest out;
  out.subject = &s;
  const std::unique_ptr<PreparedSubject> prepared = s.prepare(run);
  if (const auto baseline = failures(*prepared, device.id, backend, run); !baseline.empty()) {
    out.baseline_problem = described(baseline.front());
    return out;
  }
  std::set<OpKind> seen;
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i)
    if (seen.insert(c.decl.nodes[i].op).second) out.nodes.push_back(i);
  const Bench bench{c, *prepared, device.id, backend, run, computed(*prepared, device.id, backend)};
  for (std::size_t i : out.nodes)
    for (const Fault& f : fault_set(c.dtype)) out.outcomes.push_back(fault_one_node(bench, i, f));
  return out;
}

}  // namespace gp
