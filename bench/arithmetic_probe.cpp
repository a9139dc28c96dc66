#include "bench/arithmetic_probe.hpp"

namespace gp {

namespace {
// A call this long is not its launch, nor the start of a CPU library's threads: a host's idle
// core can take a millisecond to wake (a plugin's probe on two cores read 108 and 191 GFLOP/s at
// one size, alternately; 200 from calls of 10 ms).
constexpr double kLeastSeconds = 1e-2;
constexpr std::int64_t kMostElements = 1LL << 24;  // 4096 x 2^24 multiply-adds: seconds on one core
}  // namespace

ArithmeticProbe::ArithmeticProbe(Backend& backend, Queue& queue, DType dtype) : backend_(backend), dtype_(dtype) {
  // Once untimed: a backend may build the probe's kernels on its first call, which the growth
  // below would take for arithmetic and stop at the smallest size.
  out_ = backend_.allocate(dtype_, Shape{elements_});
  run(queue, Direction::forward);
  for (;;) {
    out_ = backend_.allocate(dtype_, Shape{elements_});
    const CallTime t = run(queue, Direction::forward);
    if (t.seconds >= kLeastSeconds || elements_ >= kMostElements) break;
    elements_ *= 4;
  }
}

CallTime ArithmeticProbe::run(Queue& queue, Direction) {
  bool ran = true;
  const CallTime t = time_call(queue, [&] { ran = queue.arithmetic_probe(*out_, kSteps); });
  if (!ran) throw NoArithmeticProbe();
  return t;
}

std::int64_t ArithmeticProbe::bytes() const { return elements_ * static_cast<std::int64_t>(dtype_size(dtype_)); }

}  // namespace gp
