// The training loop, once on the reference (through NodeOps: long double, recording each step's
// own bounds, or probing them) and once on a device. Internal to harness/.
#pragma once

#include "harness/check/context.hpp"
#include "harness/check/tolerance.hpp"
#include "harness/graph/composite_graph.hpp"
#include "harness/training/training.hpp"

namespace gp {

// What a training run is judged on, per step: the loss before the step's update, and after it
// every slot: each parameter and each of its optimizer states ("W1", "W1 m", "W1 v").
std::vector<std::string> slot_names(const Composite& c);

struct Trajectory {
  std::vector<long double> loss;                   // [step]
  std::vector<std::vector<ref::RefTensor>> slots;  // [step][slot]
};
Trajectory train_on_reference(const Composite& c, std::vector<ref::RefTensor> leaves, const NodeOps& ops);

struct DeviceTrajectory {
  std::vector<double> loss;
  std::vector<std::vector<HostTensor>> slots;
};
// A training run on a device, one step at a time: the leaves uploaded, the optimizer states zero,
// every buffer in its pool; step(k) runs the graph's forward, loss and backward and optimizer
// step k (from 1) of every parameter on the queue, without waiting.
class DeviceTraining {
 public:
  // `poison`: the graph's and the optimizer's output buffers start poisoned (the checks' aid,
  // harness/check/poison.hpp); bench leaves it out.
  DeviceTraining(const Composite& c, Backend& backend, Queue& queue, const std::vector<HostTensor>& leaves,
                 bool poison = true);
  DeviceTraining(const DeviceTraining&) = delete;
  DeviceTraining& operator=(const DeviceTraining&) = delete;

  struct Step {
    DeviceBuffer* loss;                // before the update
    std::vector<DeviceBuffer*> slots;  // after it, in slot_names order
  };
  Step step(int step);
  // Frees every buffer but the leaves, the parameters and the states as they are now: bench's
  // steps repeated without end. The queue's work must be finished.
  void release_spent();

 private:
  DeviceBuffer* upload(const HostTensor& h);
  DeviceBuffer* row(DeviceBuffer& stacked, int r, const Shape& shape);

  const Composite& c_;
  Backend& backend_;
  Queue& queue_;
  const std::vector<std::size_t> params_;
  const bool poison_;
  DevicePool pool_;
  std::map<std::string, DeviceBuffer*> values_;
  std::vector<std::vector<DeviceBuffer*>> state_;
};

// What one step moves and computes (core/op_work.hpp): the graph's forward and backward
// (graph_work) and every parameter's optimizer call with the slices and reshapes of its rows.
CallWork training_step_work(const Composite& c);

DeviceTrajectory train_on_device(const Composite& c, Backend& backend, Queue& queue,
                                 const std::vector<HostTensor>& leaves);

// Shared by the checks of a training run (training_checks.cpp, training_micro_batches.cpp).
// Fewer probes than a composite's (each probe is the whole run), a larger allowance for the
// estimate's low tail: sigma exceeds 2 x the root mean square of 32 probes with probability 4.9e-6.
inline constexpr int kTrainingProbes = 32;
inline constexpr double kTrainingProbeSafety = 2;
ref::ErrorBound training_probe_error(long double rms);
std::string training_bound_text();  // "5.5 x 32 probes' root mean square x 2"
// `expected` against `got`, into `r` (a blank result naming the part); a failure of a tensor of
// `per_step` elements a step names the first step and element out of the band (per_step 0: a
// tensor of one step).
CheckResult training_check(CheckResult r, const ref::RefTensor& expected, const HostTensor& got, const Tolerance& tol,
                           std::int64_t per_step, const std::string& how);

// The first step's gradient of every parameter accumulated over the declared micro-batches
// against the full batch's (training_micro_batches.cpp), and the calls it makes on a device.
std::vector<CheckResult> check_micro_batches(const Composite& c, const DeviceContext& device,
                                             const CompositeReference& r, const Tolerance& tol, std::uint64_t seed);
std::vector<OpCall> micro_batch_calls_of(const Composite& c);

}  // namespace gp
