// A case's call kept resident on one device for timing: its inputs, cotangent, output and gradient
// buffers uploaded once, so that each timed call is the kernel's work and not the transfers.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "backends/backend.hpp"
#include "bench/timed_call.hpp"
#include "cases/case.hpp"

namespace gp {

class ResidentCall final : public TimedCall {
 public:
  // Uploads the tensors and runs the forward once (the backward reads its output): the first
  // call, which also compiles and caches the kernels, is not timed. Throws what the device throws.
  ResidentCall(const Case& c, Backend& backend, Queue& queue, const std::vector<HostTensor>& inputs,
               const HostTensor& cotangent);
  ResidentCall(const ResidentCall&) = delete;
  ResidentCall& operator=(const ResidentCall&) = delete;

  CallTime run(Queue& queue, Direction direction) override;

 private:
  const Case& c_;
  std::vector<std::unique_ptr<DeviceBuffer>> inputs_;
  std::vector<const DeviceBuffer*> input_views_;
  std::unique_ptr<DeviceBuffer> output_, cotangent_;
  std::vector<std::unique_ptr<DeviceBuffer>> grads_;
  std::vector<DeviceBuffer*> grad_views_;
};

}  // namespace gp
