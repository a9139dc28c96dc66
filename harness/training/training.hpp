// Training runs (CompositeDecl::training, docs/training.md) on a backend: the whole loop on the
// device (forward, loss, backward, one optimizer step per parameter, repeated), against the same
// steps of the reference in long double from the same initial parameters and data, with a bound
// through the steps from every node's and every step's own error model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/graph/composite.hpp"

namespace gp {

// The optimizer steps a training run makes on a device (one per parameter), for supports().
std::vector<OpCall> training_calls_of(const Composite& c);

// The teacher's targets written into drawn leaves: the graph with parameters of its own draw run
// on the student's data (prepare_composite_reference).
void fill_teacher_targets(const Composite& c, std::vector<HostTensor>& leaves, std::uint64_t seed);

// The data of a training run: drawn leaves, the teacher's targets, the graph in long double.
CompositeReference prepare_training_reference(const Composite& c, std::uint64_t seed);

// Every call a training run makes on a device: the graph's and the optimizer's.
std::vector<OpCall> training_device_calls_of(const Composite& c);

// The reference's trajectory converges: its loss falls by the stated factor within the steps.
std::vector<CheckResult> check_training_reference(const Composite& c, const CompositeReference& r, std::uint64_t seed);

// Loss at every step, every parameter and optimizer state at every step within the bound through
// the steps; the loss falls by the stated factor on the device. A SKIP naming the first call the
// backend lacks; device errors become ERROR.
std::vector<CheckResult> check_training_on_backend(const Composite& c, const std::string& device_id, Backend& backend,
                                                   Queue& queue, const CompositeReference& r, std::uint64_t seed);

}  // namespace gp
