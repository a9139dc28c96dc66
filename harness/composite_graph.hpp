// Evaluating a composite's graph: on the reference (long double or Tracked, one node at a time
// through the primitive entry points) and on a backend (device-resident, through its kernels).
// Internal to harness/.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "harness/composite.hpp"

namespace gp {

// How one node is evaluated: the long-double reference, or with bounds for a device profile.
struct NodeOps {
  std::function<ref::RefTensor(const OpCall&, const std::vector<ref::RefTensor>&)> forward;
  std::function<std::vector<ref::RefTensor>(const OpCall&, const std::vector<ref::RefTensor>&, const ref::RefTensor&)>
      vjp;
};
NodeOps exact_node_ops();
NodeOps bounded_node_ops(const MathProfile* profile, bool flush);

// Tensors that lie on a path from a differentiable leaf to the loss: the ones that get a gradient.
std::set<std::string> tensors_with_gradient(const Composite& c);

// The graph on the reference: forward node by node, then (when `backward`) the VJPs in reverse
// order from d loss = 1, gradients of a tensor read by several nodes summed in node order by
// the `add` op, as the device does.
GraphTensors evaluate_graph(const Composite& c, const std::vector<ref::RefTensor>& leaves, const NodeOps& ops,
                            bool backward = true);

// Replaces the path-by-path bounds of the output, the loss and the leaf gradients in `bounded`
// (and loss_err) by the smaller first-order bound through the graph's Jacobian, estimated with
// random probes of every node's own error (composite_bound.cpp).
void tighten_end_to_end_bounds(const Composite& c, const std::vector<ref::RefTensor>& leaves, const GraphTensors& exact,
                               GraphTensors& bounded, const MathProfile* profile, bool flush);

// What a backend computed for a composite, downloaded once at the end.
struct DeviceGraph {
  HostTensor output, loss;
  std::map<std::string, HostTensor> grads;   // every leaf with a gradient (every tensor with keep_all)
  std::map<std::string, HostTensor> values;  // every leaf and node output, with keep_all only
};

// The graph on a backend: leaves uploaded once, every node's result in a device buffer read by
// the next nodes, gradients of fanned-out tensors summed on the device by the backend's `add`,
// no host round trip in between. Gradient buffers start poisoned (harness/poison.hpp). The
// backward pass starts from d loss = `d_loss`.
DeviceGraph run_graph_on_device(const Composite& c, Backend& backend, Queue& queue,
                                const std::vector<HostTensor>& leaves, bool backward = true, bool keep_all = false,
                                double d_loss = 1.0);

// Every OpCall the graph makes on a device (nodes and gradient sums), for supports().
std::vector<OpCall> device_calls_of(const Composite& c);

}  // namespace gp
