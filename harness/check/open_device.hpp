// Opening a selected device: the one place that turns "no such device" and "the driver refused"
// into a typed reason, for the runner, the one-subject commands, stress, selftest and the ctest
// parity program alike.
#pragma once

#include <memory>
#include <string>

#include "backends/registry.hpp"
#include "results/result.hpp"

namespace gp {

// A device opened for a run, or why it cannot run anything (a typed SKIP for each subject).
struct OpenedDevice {
  std::unique_ptr<Backend> backend;
  ReasonKind unusable = ReasonKind::none;  // unavailable or device_failed when there is no backend
  std::string reason;
};
OpenedDevice open_device(const SelectedDevice& d);

}  // namespace gp
