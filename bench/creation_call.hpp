// Tensor creation, as ML libraries' performance reports time it: a device buffer of n elements
// allocated and filled from host data, then waited for. Timed by the host's clock (an
// allocation is no device work the queue's timers see); the buffer is freed outside the timed
// call.
#pragma once

#include <cstdint>
#include <memory>

#include "bench/timed_call.hpp"

namespace gp {

class CreationCall final : public TimedCall {
 public:
  // The host data: n elements of U[-1, 1] from the stream (seed, "creation").
  CreationCall(Backend& backend, DType dtype, std::int64_t elements, std::uint64_t seed);
  CallTime run(Queue& queue, Direction direction) override;

 private:
  Backend& backend_;
  HostTensor data_;
};

}  // namespace gp
