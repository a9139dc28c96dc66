// `gradparity selftest` on a model or a training run: each fault class of the selftest applied to
// one node's kernel at a time (the first node of each op in the graph, so that every kernel the
// model uses is faulted once), the model's own checks run through it, and the table says which
// faults its checks caught and by which check.
#pragma once

#include <string>
#include <vector>

#include "harness/audit/selftest.hpp"
#include "harness/graph/model_subject.hpp"

namespace gp {

struct NodeFault {
  std::size_t node = 0;  // index into the composite's nodes
  std::string label;     // "node 2 linear (layer 2)"
  Fault fault;
  bool caught = false;
  std::string evidence;  // the first failing check
  // False when the fault changed nothing the model computes on the device (a crossing of
  // gradients in a node with no two of one shape): nothing to catch.
  bool changes = true;
  bool at_node = false;   // a check of this node failed: the node checks name where the fault is
  std::string elsewhere;  // a failing node check of another node (a fault reaching past its target)
};

struct ModelSelftest {
  const CompositeSubject* subject = nullptr;
  std::string baseline_problem;     // the unperturbed backend already fails: nothing is measured
  std::vector<std::size_t> nodes;   // the nodes faulted, in graph order
  std::vector<NodeFault> outcomes;  // per node, per fault of fault_set(dtype)
};

ModelSelftest selftest_model(const CompositeSubject& s, const SelectedDevice& device, Backend& backend,
                             const SelftestOptions& o);

}  // namespace gp
