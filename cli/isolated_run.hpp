// `run` for a device whose code gradparity did not build (DeviceEntry::run_in_child, a plugin):
// its cases run in a child process (`gradparity run-child`, hidden), which leaves a trace of
// every case it starts and finishes. When the child dies (a signal, an exit without finishing,
// no progress within --case-timeout), the case in flight becomes an ERROR naming how it died and
// a new child runs the cases after it; the run goes on and its reports are written.
#pragma once

#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace gp::cli {

// The checks of `device` on every subject, in their order; never throws for what happens in the
// child.
std::vector<CheckResult> run_device_in_child(const RunCommand& cmd, const SelectedDevice& device,
                                             const std::vector<const Subject*>& subjects);

}  // namespace gp::cli
