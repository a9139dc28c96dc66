// Evaluating a composite's graph: on the reference (long double or Tracked, one node at a time
// through the primitive entry points) and on a backend (device-resident, through its kernels).
// Internal to harness/.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/op_work.hpp"
#include "harness/check/cache_blob.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/check/rng.hpp"
#include "harness/graph/composite.hpp"
#include "harness/graph/node_memo.hpp"

namespace gp {

// How one node is evaluated: the long-double reference, or with bounds for a device profile.
struct NodeOps {
  std::function<ref::RefTensor(const OpCall&, const std::vector<ref::RefTensor>&)> forward;
  std::function<std::vector<ref::RefTensor>(const OpCall&, const std::vector<ref::RefTensor>&, const ref::RefTensor&)>
      vjp;
};
NodeOps exact_node_ops();
// The arithmetic a bound pass models: a device profile (null: the long-double reference's own)
// and flush mode, and the subject's memo through which its profile-free node evaluations are
// shared with the other devices' passes, in this process and, through the reference cache, others.
struct BoundArithmetic {
  const MathProfile* profile;
  bool flush;
  NodeBoundMemo& memo;
  ReferenceCache* cache = nullptr;
};
NodeOps bounded_node_ops(const MathProfile* profile, bool flush);

// Leaves as the reference reads them (exact widenings).
std::vector<ref::RefTensor> widened(const std::vector<HostTensor>& leaves);

// Tensors that lie on a path from a differentiable leaf to the loss: the ones that get a gradient.
std::set<std::string> tensors_with_gradient(const Composite& c);

// The graph on the reference: forward node by node, then (when `backward`) the VJPs in reverse
// order from d loss = 1, gradients of a tensor read by several nodes summed in node order by
// the `add` op, as the device does. The backward pass starts from d loss = `d_loss`.
GraphTensors evaluate_graph(const Composite& c, const std::vector<ref::RefTensor>& leaves, const NodeOps& ops,
                            bool backward = true, long double d_loss = 1);

// First-order probes of a bound (composite_bound.cpp). A pass through recording ops evaluates
// exactly and records, for every node evaluation in the order the pass makes them (forward
// nodes, VJPs, gradient sums, optimizer steps), its own bound per output element at exact
// inputs; a pass through probing ops moves each evaluation's output by +-that bound, signs from
// `rng`, `next` counting the evaluations.
using LocalBounds = std::vector<std::vector<Radii>>;
// `forward`, when given, keeps each forward evaluation's whole bound by its OpCall's address.
NodeOps recording_node_ops(const BoundArithmetic& a, LocalBounds& local,
                           std::map<const OpCall*, ref::RefTensor>* forward = nullptr);
NodeOps probing_node_ops(const LocalBounds& local, Rng& rng, std::size_t& next);

// The probes' root mean square per checked value of a computation: `run` evaluates it through
// the ops it is given and returns its checked values flattened; one recording pass, then
// `probes` probing passes, probe p's signs from the stream (`id`, `stream` + p).
using ProbedRun = std::function<std::vector<long double>(const NodeOps&)>;
struct ProbeStream {
  const std::string& id;  // the subject's
  std::string prefix;     // "bound probe ": probe p draws from (id, prefix + p)
};
std::vector<long double> probe_rms(const ProbedRun& run, const BoundArithmetic& a, int probes,
                                   const ProbeStream& stream,
                                   std::map<const OpCall*, ref::RefTensor>* forward = nullptr);

// min(worst, lambda * safety * rms) in the tolerance's terms (tolerance.hpp): with det and spec
// zero, the bound is (1 + r) min(kFormulation acc, lambda prob). `worst` may be infinite.
ref::ErrorBound probe_error_bound(long double worst, long double rms, double safety);

// The reference cache's address of `what` a composite's reference computes, but for the device
// profile that cached_bounds adds: the composite, its leaves' bytes.
CacheKeyBuilder composite_cache_key(std::string_view what, const Composite& c, const CompositeReference& r);
// A graph evaluation as a reference cache entry holds it (harness/check/cache_blob.hpp).
void encode(BlobWriter& w, const GraphTensors& t);
void decode(BlobReader& r, GraphTensors& t);

// Replaces the path-by-path bounds of the output, the loss and the leaf gradients in `bounded`
// (and loss_err) by the smaller first-order bound through the graph's Jacobian, estimated with
// random probes of every node's own error (composite_bound.cpp). `worst_loss_error` gives the
// gradient-weighted worst case of the loss (GraphTensors::loss_err) from every node's own forward
// bound at the reference's inputs, which the probes' recording pass computes anyway.
using NodeForwardBounds = std::map<const OpCall*, ref::RefTensor>;  // keyed by &c.calls[i]
void tighten_end_to_end_bounds(const Composite& c, const CompositeReference& r, GraphTensors& bounded,
                               const MathProfile* profile, bool flush,
                               const std::function<ref::ErrorBound(const NodeForwardBounds&)>& worst_loss_error);

// What a backend computed for a composite, downloaded once at the end.
struct DeviceGraph {
  HostTensor output, loss;
  std::map<std::string, HostTensor> grads;   // every leaf with a gradient (every tensor with keep_all)
  std::map<std::string, HostTensor> values;  // every leaf and node output, with keep_all only
};

// The graph on a backend: leaves uploaded once, every node's result in a device buffer read by
// the next nodes, gradients of fanned-out tensors summed on the device by the backend's `add`,
// no host round trip in between. Gradient buffers start poisoned (harness/check/poison.hpp). The
// backward pass starts from d loss = `d_loss`.
struct GraphRun {
  bool backward = true;   // false: the forward alone
  bool keep_all = false;  // every node's value and every gradient in DeviceGraph::values / grads
  double d_loss = 1.0;
  bool poison = true;  // false: buffers allocated only (bench times the graph, not the checks' aids)
};
DeviceGraph run_graph_on_device(const Composite& c, Backend& backend, Queue& queue,
                                const std::vector<HostTensor>& leaves, const GraphRun& how = {});

// The same on device buffers the caller owns: `leaves` by name; every buffer the graph allocates
// goes to `pool`, which must outlive the queue's work (a training loop keeps parameters on the
// device across steps). Returns every value and gradient buffer by tensor name.
using DevicePool = std::vector<std::unique_ptr<DeviceBuffer>>;
// A buffer of `pool` holding `h`.
DeviceBuffer* upload_to_pool(Backend& backend, Queue& queue, DevicePool& pool, const HostTensor& h);
struct DeviceTensors {
  std::map<std::string, DeviceBuffer*> value, grad;
};
// The graph on buffers already on the device (`how.keep_all` is not used: every buffer stays
// in `pool` and the maps). It does not wait for the queue: the caller's DeviceCallsTimer counts
// the calls once they are finished.
DeviceTensors run_graph_on_buffers(const Composite& c, Backend& backend, Queue& queue,
                                   std::map<std::string, DeviceBuffer*> leaves, DevicePool& pool,
                                   const GraphRun& how = {});

// Every OpCall the graph makes on a device (nodes and gradient sums), for supports().
std::vector<OpCall> device_calls_of(const Composite& c);

// What one run of the graph on a device moves and computes (core/op_work.hpp), summed over the
// calls run_graph_on_buffers makes: the nodes' forwards, and with `backward` their VJPs and the
// gradient sums of fanned-out tensors.
CallWork graph_work(const Composite& c, bool backward);

}  // namespace gp
