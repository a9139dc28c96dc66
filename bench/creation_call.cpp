#include "bench/creation_call.hpp"

#include <chrono>

#include "harness/check/rng.hpp"

namespace gp {

CreationCall::CreationCall(Backend& backend, DType dtype, std::int64_t elements, std::uint64_t seed)
    : backend_(backend), data_(dtype, Shape{elements}) {
  Rng rng = Rng::for_case(seed, "creation", "values");
  for (std::int64_t i = 0; i < elements; ++i) data_.set(i, rng.uniform(-1, 1));
}

CallTime CreationCall::run(Queue& queue, Direction) {
  const auto since = std::chrono::steady_clock::now();
  std::unique_ptr<DeviceBuffer> made = backend_.allocate(data_.dtype(), data_.shape());
  queue.upload(*made, data_);
  queue.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  queue.take_device_seconds();  // the upload's, if the queue timed it: not the row's measure
  made.reset();                 // after the clock: freeing is not creating
  return {wall, false};
}

}  // namespace gp
