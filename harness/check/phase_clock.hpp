// Measures the run's profile (results/profile.hpp): a PhaseRecorder sums the time of each phase
// over the worker threads; a PhaseBinding says, for one thread and one subject, where its phases
// go; a PhaseTimer placed where a phase begins counts until it ends, excluding the phases nested
// inside it. Code that runs unbound (a test, `repro`) times nothing.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

#include "backends/backend.hpp"
#include "results/profile.hpp"

namespace gp {

class PhaseRecorder {
 public:
  void add(Phase p, SubjectKind k, std::chrono::nanoseconds t);
  void add_device(SubjectKind k, std::chrono::nanoseconds t);  // the devices' own timers
  PhaseProfile profile() const;
  // Adds what `part` recorded (a large case's own recorder, kept apart for its progress line).
  void merge(const PhaseRecorder& part);

 private:
  std::array<std::atomic<std::int64_t>, kPhaseCount * kSubjectKindCount> ns_{};
  std::array<std::atomic<std::int64_t>, kSubjectKindCount> device_ns_{};
};

class PhaseTimer {
 public:
  explicit PhaseTimer(Phase p);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  using Clock = std::chrono::steady_clock;
  friend class PhaseBinding;
  void pause(Clock::time_point now) { spent_ += now - since_; }
  void resume(Clock::time_point now) { since_ = now; }
  Phase phase_;
  bool active_ = false;
  PhaseTimer* outer_ = nullptr;
  Clock::time_point since_;
  Clock::duration spent_{};
};

// A block of device calls on one queue: Phase::device_calls (host wall), and at its end the
// device time the queue's timers measured in it (Queue::take_device_seconds), for the same
// subject kind. The block must end with its work finished (a download, finish()).
class DeviceCallsTimer {
 public:
  explicit DeviceCallsTimer(Queue& queue) : timer_(Phase::device_calls), queue_(queue) {}
  ~DeviceCallsTimer();
  // The device time since the last lap (or the start), counted in the profile as at the end;
  // nothing where the queue has no timers. The work must be finished.
  std::optional<double> lap();
  DeviceCallsTimer(const DeviceCallsTimer&) = delete;
  DeviceCallsTimer& operator=(const DeviceCallsTimer&) = delete;

 private:
  PhaseTimer timer_;
  Queue& queue_;
};

// While it lives, this thread's phases count for `kind` in `recorder` (null: nothing is timed);
// its own time outside any phase counts as Phase::other.
class PhaseBinding {
 public:
  PhaseBinding(PhaseRecorder* recorder, SubjectKind kind);
  ~PhaseBinding();
  PhaseBinding(const PhaseBinding&) = delete;
  PhaseBinding& operator=(const PhaseBinding&) = delete;

 private:
  PhaseRecorder* previous_recorder_;
  SubjectKind previous_kind_;
  PhaseTimer* previous_timer_;
  std::optional<PhaseTimer> root_;
};

}  // namespace gp
