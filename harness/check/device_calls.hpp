// Host-side driving of one backend queue for one case: allocate, upload, run, download. Every
// output and gradient buffer is poisoned (harness/check/poison.hpp) before the kernel that writes it.
#pragma once

#include <vector>

#include "backends/backend.hpp"
#include "cases/case.hpp"

namespace gp {

// What input k's buffer holds: `values` where the input is contiguous; for a strided input
// (core/strided.hpp) its storage, every element its view does not read poisoned, so a kernel that
// reads past its strides fails. Throws gp::Error where `values` are not what the view can hold.
HostTensor input_buffer(const OpCall& call, std::size_t k, const HostTensor& values);

class DeviceCalls {
 public:
  DeviceCalls(const Case& c, Backend& backend, Queue& queue) : c_(c), backend_(backend), queue_(queue) {}

  struct Result {
    HostTensor output;
    std::vector<HostTensor> grads;  // empty (default) tensors where an input gets no gradient
    // The same backward run a second time into the same gradient buffers, not poisoned again:
    // a kernel that accumulates into its gradient, or reads it, gives other bits here.
    std::vector<HostTensor> grads_again;
    // The output, then each gradient: what `stress` compares between threads.
    std::vector<HostTensor> computed() && {
      std::vector<HostTensor> out{std::move(output)};
      for (auto& g : grads) out.push_back(std::move(g));
      return out;
    }
  };
  // How long the forward and the first backward took, each between two synchronisations of the
  // queue (its uploads and the poisoning of its outputs before, its downloads after): by the
  // device's own timers where the queue has them (Queue::take_device_seconds), else by the host's
  // clock around the call.
  struct CallTimes {
    double forward_seconds = 0, backward_seconds = 0;
    bool device_timer = false;
  };
  // Forward, then backward (twice) from the backend's own forward output and the cotangent;
  // `times`, where given, gets the calls' times (the synchronisations cost the batching of calls).
  Result forward_backward(const std::vector<HostTensor>& inputs, const HostTensor& cotangent,
                          CallTimes* times = nullptr);
  // Forward with input k replaced.
  HostTensor forward_with(const std::vector<HostTensor>& inputs, int k, const HostTensor& replacement);

 private:
  HostTensor run_forward(const std::vector<HostTensor>& inputs, int k, const HostTensor* replacement);
  std::unique_ptr<DeviceBuffer> poisoned(DType dtype, const Shape& shape);
  std::vector<std::unique_ptr<DeviceBuffer>> upload_all(const std::vector<HostTensor>& inputs, int k = -1,
                                                        const HostTensor* replacement = nullptr);
  const Case& c_;
  Backend& backend_;
  Queue& queue_;
};

}  // namespace gp
