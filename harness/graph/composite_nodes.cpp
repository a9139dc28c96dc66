// Node by node: each node of a composite as a primitive case of its own, fed what the reference
// computed for it, so that a failure names the node, its layer and its op.
#include "cases/registry.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/graph/composite_checks.hpp"

namespace gp {

namespace {

// A reference value rounded to the dtype: what a correct device would hold there.
HostTensor rounded(const ref::RefTensor& t, DType dtype) {
  HostTensor h(dtype, t.shape);
  for (std::int64_t i = 0; i < h.numel(); ++i) h.set(i, static_cast<double>(t.v[static_cast<std::size_t>(i)]));
  return h;
}

}  // namespace

std::string node_label(const Composite& c, std::size_t i) {
  const NodeDecl& n = c.decl.nodes[i];
  return "node " + std::to_string(i) + " " + std::string(op_name(n.op)) + " (" + n.layer + ")";
}

// The node as a case: its op, attributes and shapes (a straight-through op's surrogate is its
// catalog row's).
Case node_case(const Composite& c, std::size_t i) {
  const NodeDecl& n = c.decl.nodes[i];
  Case nc;
  nc.decl.op = n.op;
  nc.decl.attrs = n.attrs;
  for (const Shape& s : c.calls[i].input_shapes) nc.decl.inputs.push_back({s, Domain{}});
  nc.dtype = c.dtype;
  nc.id = c.id + " " + node_label(c, i);
  nc.call = c.calls[i];
  return nc;
}

ReferenceData node_reference(const Composite& c, std::size_t i, const CompositeReference& r) {
  PhaseTimer timer(Phase::reference);
  const NodeDecl& n = c.decl.nodes[i];
  ReferenceData d;
  d.cache = r.cache;
  d.cache_id = c.id + " " + node_label(c, i);
  d.call = c.calls[i];
  for (std::size_t k = 0; k < n.inputs.size(); ++k)
    d.inputs.push_back(rounded(r.exact.value.at(n.inputs[k]), c.calls[i].input_dtypes[k]));
  auto g = r.exact.grad.find(n.output);
  d.cotangent = g == r.exact.grad.end() ? HostTensor(c.dtype, c.calls[i].output_shape) : rounded(g->second, c.dtype);
  for (const auto& t : d.inputs) d.ref_inputs.push_back(ref::RefTensor::from_host(t));
  d.ref_cotangent = ref::RefTensor::from_host(d.cotangent);
  d.output = ref::forward(d.call, d.ref_inputs);
  d.grads = ref::vjp(d.call, d.ref_inputs, d.output, d.ref_cotangent);
  return d;
}

std::vector<CheckResult> check_nodes(const Composite& c, const std::string& device_id, Backend& backend, Queue& queue,
                                     const CompositeReference& r, std::uint64_t seed) {
  std::vector<CheckResult> out;
  NumericalOptions no_fd;
  no_fd.backend_probes = 0;  // the composite's own finite differences cover the whole graph
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i) {
    const Case nc = node_case(c, i);
    const ReferenceData data = node_reference(c, i, r);
    for (CheckResult& x : check_on_backend(nc, {device_id, &backend, &queue}, data, {seed, no_fd})) {
      if (x.direction == Direction::numerical_backend) continue;
      CheckResult y = blank_composite_result(c, device_id, Direction::node,
                                             node_label(c, i) + " " + direction_label(x.direction, x.input), seed);
      y.verdict = x.verdict;
      y.reason = x.reason;
      y.tolerance = x.tolerance;
      y.metrics = x.metrics;
      y.time_ms = x.time_ms;
      out.push_back(std::move(y));
    }
  }
  return out;
}

}  // namespace gp
