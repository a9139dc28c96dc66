// Composite models (cases/composite.hpp) on a backend: three checks per composite.
//   end to end: output, loss and the gradient of every parameter and input against the graph
//     evaluated by the reference, each element within a bound propagated through the graph;
//   node by node: each node run alone on the backend with the reference's inputs to it and the
//     reference's gradient of its output, judged by the primitive's own checks, so a failure
//     names the node, its layer and its op;
//   numerical: directional finite differences of the whole loss, on the reference (long double)
//     and on the backend (its own forward in its dtype), with a Richardson split.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "cases/composite.hpp"
#include "harness/check/profile_memo.hpp"
#include "harness/graph/node_memo.hpp"
#include "reference/reference.hpp"
#include "results/result.hpp"

namespace gp {
class ReferenceCache;  // harness/check/reference_cache.hpp
}

namespace gp {

// Every tensor of a graph evaluation: values of leaves and node outputs, and gradients of the
// loss with respect to each tensor on a path to it. With bounds, `err` is filled.
struct GraphTensors {
  std::map<std::string, ref::RefTensor> value, grad;
  // The loss's error bound: the smaller of the gradient-weighted worst case (sum over every node
  // output v and element i of |dL/dv_i| times the node's own error there) and the probes' bound
  // through the graph's Jacobian (composite_bound.cpp); equal to value[loss].err after bounded().
  ref::ErrorBound loss_err;
};

struct CompositeReference {
  std::vector<HostTensor> leaves;   // in declaration order, in the dtype (i32 class indices)
  GraphTensors exact;               // long double
  ReferenceCache* cache = nullptr;  // where bounds are kept between runs; null: computed
  // The same evaluation in Tracked arithmetic for a device profile, tightened by the probes: the
  // bounds of the checked tensors, the output, the loss and the leaves' gradients (computed on
  // first use, or read from `cache`; the devices of a subject use it from several threads at once).
  const GraphTensors& bounded(const Composite& c, const MathProfile* profile, bool flush) const;
  // The node evaluations of the bound passes that every device profile shares (node_memo.hpp).
  NodeBoundMemo& node_bounds() const { return node_bounds_; }

 private:
  ProfileMemo<GraphTensors> bounded_;
  mutable NodeBoundMemo node_bounds_;
};

// Writes leaves that are not drawn but derived from the drawn ones (a training run's targets).
using LeafFill = std::function<void(std::vector<HostTensor>& leaves)>;

// Draws the leaves (redrawing while a kinked op's input lies near a kink, up to a limit), lets
// `fill` complete them, and evaluates the graph in long double. Throws gp::Error when no draw
// keeps clear of the kinks.
CompositeReference prepare_composite_reference(const Composite& c, std::uint64_t seed, const LeafFill& fill = {});

// The reference's gradient against finite differences of the reference (backend "reference").
std::vector<CheckResult> check_composite_reference(const Composite& c, const CompositeReference& r, std::uint64_t seed);

// End to end, node by node and numerical checks on one backend; device errors become ERROR.
std::vector<CheckResult> check_composite_on_backend(const Composite& c, const std::string& device_id, Backend& backend,
                                                    Queue& queue, const CompositeReference& r, std::uint64_t seed);

// Every tensor a backend computes for a composite at the reference's leaves (gradparity dump):
// values of leaves and node outputs, gradients of every tensor on a path to the loss.
struct CompositeTensors {
  std::map<std::string, HostTensor> values, grads;
};
CompositeTensors run_composite_keeping_all(const Composite& c, Backend& backend, Queue& queue,
                                           const CompositeReference& r);

// A result pre-filled with the composite's identity and its repro line; `part` names what it
// judges ("loss", "grad W1", "node 4 linear (layer 2) backward input 0").
CheckResult blank_composite_result(const Composite& c, const std::string& device_id, Direction d,
                                   const std::string& part, std::uint64_t seed);

}  // namespace gp
