// The training loop, once on the reference (through NodeOps: long double, recording each step's
// own bounds, or probing them) and once on a device. Internal to harness/.
#pragma once

#include "harness/composite_graph.hpp"
#include "harness/training.hpp"

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
DeviceTrajectory train_on_device(const Composite& c, Backend& backend, Queue& queue,
                                 const std::vector<HostTensor>& leaves);

}  // namespace gp
