// What bench times: something a queue runs, one call at a time (a case's forward or backward,
// a probe of the device's limits), each between two synchronisations of the queue.
#pragma once

#include <chrono>
#include <optional>

#include "backends/backend.hpp"
#include "results/result.hpp"

namespace gp {

// A call's seconds by the device's timers where the queue has them, else by the host's clock
// around the call and its wait.
struct CallTime {
  double seconds = 0;
  bool device_timer = false;
};

class TimedCall {
 public:
  virtual ~TimedCall() = default;
  virtual CallTime run(Queue& queue, Direction direction) = 0;
};

// Runs `enqueue` (which puts the call on `queue`), waits for it, and times it.
template <typename Enqueue>
CallTime time_call(Queue& queue, Enqueue&& enqueue) {
  const auto since = std::chrono::steady_clock::now();
  enqueue();
  queue.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  const std::optional<double> device = queue.take_device_seconds();
  return {device.value_or(wall), device.has_value()};
}

}  // namespace gp
