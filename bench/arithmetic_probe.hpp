// The device's arithmetic limit for one dtype, as bench measures it: the backend's own
// multiply-add chains (Queue::arithmetic_probe), grown until one call takes at least a
// millisecond, so that the launch does not hide the rate. What the contractions' GFLOP/s are read
// against (bench.md's "of peak", the roofline's ceiling in bench.html).
#pragma once

#include <memory>
#include <stdexcept>

#include "bench/timed_call.hpp"

namespace gp {

// Thrown when a backend has no arithmetic probe (a plugin): the limit is then not measured.
struct NoArithmeticProbe : std::runtime_error {
  NoArithmeticProbe() : std::runtime_error("the backend has no arithmetic probe (Queue::arithmetic_probe)") {}
};

class ArithmeticProbe final : public TimedCall {
 public:
  static constexpr int kSteps = 4096;  // multiply-adds per element and call

  // Sizes the probe on `queue` (throws NoArithmeticProbe, or what the device throws).
  ArithmeticProbe(Backend& backend, Queue& queue, DType dtype);
  CallTime run(Queue& queue, Direction direction) override;
  std::int64_t elements() const { return elements_; }
  std::int64_t flops() const { return 2 * elements_ * kSteps; }
  std::int64_t bytes() const;

 private:
  Backend& backend_;
  DType dtype_;
  std::int64_t elements_ = 1 << 12;
  std::unique_ptr<DeviceBuffer> out_;
};

}  // namespace gp
