// The three checks of a composite, one file each. Internal to harness/.
#pragma once

#include <functional>

#include "harness/check/checker.hpp"
#include "harness/check/context.hpp"
#include "harness/check/tolerance.hpp"
#include "harness/graph/composite_graph.hpp"

namespace gp {

// Whether a backend has every call; the reason names every op it lacks, each with its first
// reason ("2 ops missing: gelu: no f16; cross_entropy: no i32").
Support supports_calls(Backend& backend, const std::vector<OpCall>& calls);

// A composite's checks on a device, or one SKIP naming the ops of `calls` the backend lacks;
// an error other than DeviceLost becomes one ERROR (a training run's checks go through it too).
std::vector<CheckResult> guarded_composite_checks(const Composite& c, const std::vector<OpCall>& calls,
                                                  const std::string& device_id, Backend& backend, std::uint64_t seed,
                                                  const std::function<std::vector<CheckResult>()>& checks);

// The device's tolerance terms for a composite's dtype.
Tolerance composite_tolerance(const Composite& c, const Backend& backend);

// Output, loss and every leaf gradient against the graph's bounded reference evaluation.
std::vector<CheckResult> check_end_to_end(const Composite& c, const std::string& device_id, const Tolerance& tol,
                                          const GraphTensors& bounded, const DeviceGraph& d, std::uint64_t seed);

// A node of a composite as a primitive case ("<model id> node 4 linear (layer 3)"), and its
// reference data: the reference's values at its inputs (rounded to the dtype) and the reference's
// gradient of its output as the cotangent. The node checks and the oracle check of a model use it.
std::string node_label(const Composite& c, std::size_t i);  // "node 4 linear (layer 3)"
Case node_case(const Composite& c, std::size_t i);
ReferenceData node_reference(const Composite& c, std::size_t i, const CompositeReference& r);

// Each node alone on the backend, fed the reference's inputs and output gradient, judged by
// the primitive checks (harness/check/checker.hpp); results are labelled with the node.
std::vector<CheckResult> check_nodes(const Composite& c, const std::string& device_id, Backend& backend, Queue& queue,
                                     const CompositeReference& r, std::uint64_t seed);

// Directional finite differences of the backend's loss against its gradients.
CheckResult check_composite_numerics_on_backend(const Composite& c, const DeviceContext& device,
                                                const CompositeReference& r, const DeviceGraph& d, const Tolerance& tol,
                                                std::uint64_t seed);

}  // namespace gp
