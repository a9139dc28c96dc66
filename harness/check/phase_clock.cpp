#include "harness/check/phase_clock.hpp"

namespace gp {

namespace {

// The binding and the innermost running timer of this thread.
struct ThreadPhases {
  PhaseRecorder* recorder = nullptr;
  SubjectKind kind = SubjectKind::primitive;
  PhaseTimer* current = nullptr;
};
thread_local ThreadPhases t_phases;

std::size_t slot(Phase p, SubjectKind k) {
  return static_cast<std::size_t>(p) * kSubjectKindCount + static_cast<std::size_t>(k);
}

}  // namespace

void PhaseRecorder::add(Phase p, SubjectKind k, std::chrono::nanoseconds t) {
  ns_[slot(p, k)].fetch_add(t.count(), std::memory_order_relaxed);
}

void PhaseRecorder::add_device(SubjectKind k, std::chrono::nanoseconds t) {
  device_ns_[static_cast<std::size_t>(k)].fetch_add(t.count(), std::memory_order_relaxed);
}

PhaseProfile PhaseRecorder::profile() const {
  PhaseProfile out;
  for (Phase p : kAllPhases)
    for (SubjectKind k : kAllSubjectKinds)
      out.at(p, k) = static_cast<double>(ns_[slot(p, k)].load(std::memory_order_relaxed)) * 1e-9;
  for (SubjectKind k : kAllSubjectKinds)
    out.device_seconds[static_cast<std::size_t>(k)] =
        static_cast<double>(device_ns_[static_cast<std::size_t>(k)].load(std::memory_order_relaxed)) * 1e-9;
  return out;
}

void PhaseRecorder::merge(const PhaseRecorder& part) {
  for (std::size_t i = 0; i < ns_.size(); ++i) ns_[i].fetch_add(part.ns_[i].load(std::memory_order_relaxed));
  for (std::size_t i = 0; i < device_ns_.size(); ++i)
    device_ns_[i].fetch_add(part.device_ns_[i].load(std::memory_order_relaxed));
}

std::optional<double> DeviceCallsTimer::lap() {
  const std::optional<double> seconds = queue_.take_device_seconds();  // taken bound or not: a fresh count next
  if (seconds && t_phases.recorder)
    t_phases.recorder->add_device(t_phases.kind, std::chrono::nanoseconds(static_cast<std::int64_t>(*seconds * 1e9)));
  return seconds;
}

DeviceCallsTimer::~DeviceCallsTimer() { lap(); }

PhaseTimer::PhaseTimer(Phase p) : phase_(p) {
  if (!t_phases.recorder) return;
  active_ = true;
  outer_ = t_phases.current;
  since_ = Clock::now();
  if (outer_) outer_->pause(since_);
  t_phases.current = this;
}

PhaseTimer::~PhaseTimer() {
  if (!active_) return;
  const Clock::time_point now = Clock::now();
  pause(now);
  t_phases.recorder->add(phase_, t_phases.kind, std::chrono::duration_cast<std::chrono::nanoseconds>(spent_));
  t_phases.current = outer_;
  if (outer_) outer_->resume(now);
}

// An enclosing timer of another binding stays paused while this one lives: no time counts twice.
PhaseBinding::PhaseBinding(PhaseRecorder* recorder, SubjectKind kind)
    : previous_recorder_(t_phases.recorder), previous_kind_(t_phases.kind), previous_timer_(t_phases.current) {
  if (previous_timer_) previous_timer_->pause(std::chrono::steady_clock::now());
  t_phases = {recorder, kind, nullptr};
  root_.emplace(Phase::other);
}

PhaseBinding::~PhaseBinding() {
  root_.reset();
  t_phases = {previous_recorder_, previous_kind_, previous_timer_};
  if (previous_timer_) previous_timer_->resume(std::chrono::steady_clock::now());
}

}  // namespace gp
