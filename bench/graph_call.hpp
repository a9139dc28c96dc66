// A model's or a training run's calls kept on one device for timing: the leaves uploaded once,
// each timed call the whole graph on the device's queue. A model's forward row is its graph's
// forward; its backward row the forward and the backward together (the gradient of a model needs
// both, as a framework's step runs them); a training run's one row is one optimizer step: forward,
// loss, backward and every parameter's update. Intermediate buffers are allocated in the call, as
// a framework allocates them, and not poisoned (the checks' aid, not the model's work).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/timed_call.hpp"
#include "harness/graph/composite_graph.hpp"
#include "harness/training/training_loop.hpp"

namespace gp {

class GraphCall final : public TimedCall {
 public:
  // Uploads the leaves and runs the graph once, untimed (the kernels compile). Throws what the
  // device throws.
  GraphCall(const Composite& c, Backend& backend, Queue& queue, const std::vector<HostTensor>& leaves);
  CallTime run(Queue& queue, Direction direction) override;

 private:
  const Composite& c_;
  Backend& backend_;
  DevicePool leaf_buffers_, scratch_;
  std::map<std::string, DeviceBuffer*> leaves_;
};

class TrainingStepCall final : public TimedCall {
 public:
  // Uploads the leaves and makes the first step, untimed. Throws what the device throws.
  TrainingStepCall(const Composite& c, Backend& backend, Queue& queue, const std::vector<HostTensor>& leaves);
  // One more step (the direction is the row's, always backward: see bench_rows_of).
  CallTime run(Queue& queue, Direction direction) override;

 private:
  DeviceTraining training_;
  int steps_ = 0;
};

}  // namespace gp
