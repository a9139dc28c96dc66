// Runs one stress mode of one device in a child process (the gradparity binary itself, exec'd
// with the hidden sub-command `stress-child`), so that a crash or a hang of a deliberately or
// accidentally racy run is a failure of that mode and the run goes on.
#pragma once

#include <string>

#include "cli/commands.hpp"
#include "results/result.hpp"

namespace gp::cli {

// Starts the child for `device_id` x `mode` with the options of `cmd`, waits at most
// `timeout_s` (then SIGKILL) and returns what the child wrote, with `crash` set for a signal,
// a timeout or an exit without a result. Never throws for what happens in the child.
StressResult run_mode_in_child(const StressCommand& cmd, const std::string& device_id, const std::string& mode,
                               double timeout_s);

}  // namespace gp::cli
