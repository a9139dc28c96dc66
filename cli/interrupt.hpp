// Ctrl-C and SIGTERM during a long run: the first signal asks the run to stop after the cases
// in progress, so the finished checks are still written (as a report marked interrupted); the
// second one ends the process at once, as if no handler were installed.
#pragma once

#include <atomic>

namespace gp::cli {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the SIGINT / SIGTERM handlers
  ~InterruptGuard();  // restores the previous ones
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Set by the first signal; RunOptions::stop points here.
  static const std::atomic<bool>& flag();
  static int signal_number();  // the signal that set the flag, 0 before
};

// The conventional exit code of a process stopped by SIGINT (128 + 2).
inline constexpr int kInterruptedExit = 130;

}  // namespace gp::cli
