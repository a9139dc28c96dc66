// The subjects a stress child is running, for its parent to name after a crash. A stress mode
// runs many threads in one child process; when a kernel kills it (SIGSEGV in a plugin), the
// parent knew only the signal. Each thread marks the subject it runs in a slot; a handler of the
// fatal signals writes the marked ids to a file the parent named, with write(2) only (nothing
// else is safe in a signal handler), then lets the signal end the process as before.
#pragma once

#include <string>

namespace gp {

// Marks `id` as running on slot `slot` (a thread's index) while it lives. `id` must outlive it
// (a Subject's id does).
class InFlight {
 public:
  InFlight(int slot, const std::string& id);
  ~InFlight();
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;

 private:
  int slot_;
};

// From now on, a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) first writes the ids
// marked at that moment to `path`, one per line. Throws when the file cannot be created.
void note_in_flight_on_crash(const std::string& path);

// The ids such a file holds, joined with ", "; empty when it is missing or empty.
std::string read_in_flight(const std::string& path);

}  // namespace gp
