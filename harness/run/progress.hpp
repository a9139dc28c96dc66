// The run's progress lines on stderr: a rewritten line on a terminal, every tenth otherwise, and
// a line of its own for each large case with its time and where it went.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>

#include "results/profile.hpp"

namespace gp {

// A large case's phases on its worker: "inputs 30.1, device_calls 29.0, ...", the phases of at
// least 0.05 s; `other` is what the named phases leave of `seconds`.
std::string phase_breakdown(const PhaseProfile& p, SubjectKind kind, double seconds);

class Progress {
 public:
  Progress(bool on, std::size_t items);
  void done(const std::string& id) { line(id, {}); }
  // A large case's time from its memory reservation to its last check and where it went, a line
  // of its own (a large tier's cases take seconds to minutes each; the run's long pole shows there).
  void done_large(const std::string& id, double seconds, const std::string& phases);

 private:
  void line(const std::string& id, const std::string& large);

  bool on_;
  std::size_t items_;
  bool tty_;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
};

}  // namespace gp
