// The gradparity executable run as a child process of itself (`stress` per mode, `run` per
// plugin device), so that a crash or a hang in code gradparity did not write ends the child,
// not the run.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gp::cli {

struct ChildExit {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it (SIGKILL after `kill_reason` too)
  std::string killed;  // why the parent killed it, or empty
  double seconds = 0;  // wall time
  bool clean() const { return killed.empty() && signal == 0 && exit_code == 0; }
  // "signal 11 (SIGSEGV)", "exit code 2", or the reason it was killed.
  std::string describe() const;
};

// Runs this executable with `args` (args[0] is argv[0]) and waits for it. `kill_reason` is asked
// every 20 ms with the seconds so far; a non-empty answer kills the child (SIGKILL). The child
// dies with the parent (PR_SET_PDEATHSIG). Throws gp::Error only when it cannot be started.
ChildExit run_self(const std::vector<std::string>& args, const std::function<std::string(double)>& kill_reason);

// The ids a parent hands its child in a file, one per line (blank lines skipped).
std::vector<std::string> read_id_list(const std::string& path);
// What a child has written to a file of its trace so far: empty while the file does not exist.
std::string read_child_file(const std::string& path);

// A new, empty file (or folder) under $TMPDIR or /tmp, named gradparity-STEM-XXXXXX.
std::string make_temp_path(const std::string& stem, bool folder);

}  // namespace gp::cli
