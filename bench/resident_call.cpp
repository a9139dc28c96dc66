#include "bench/resident_call.hpp"

#include "harness/check/device_calls.hpp"

namespace gp {

ResidentCall::ResidentCall(const Case& c, Backend& backend, Queue& queue, const std::vector<HostTensor>& inputs,
                           const HostTensor& cotangent)
    : c_(c) {
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const HostTensor buffer = input_buffer(c.call, k, inputs[k]);  // a strided input's storage
    inputs_.push_back(backend.allocate(buffer.dtype(), buffer.shape()));
    queue.upload(*inputs_.back(), buffer);
    input_views_.push_back(inputs_.back().get());
    const bool differentiable = input_is_differentiable(c.decl.op, static_cast<int>(k));
    grads_.push_back(differentiable ? backend.allocate(inputs[k].dtype(), inputs[k].shape()) : nullptr);
    grad_views_.push_back(grads_.back().get());
  }
  output_ = backend.allocate(c.dtype, c.call.output_shape);
  cotangent_ = backend.allocate(c.dtype, c.call.output_shape);
  queue.upload(*cotangent_, cotangent);
  queue.forward(c.call, input_views_, *output_);
  queue.finish();
  queue.take_device_seconds();  // the uploads and the first call are not a timed call's
}

CallTime ResidentCall::run(Queue& queue, Direction direction) {
  return time_call(queue, [&] {
    if (direction == Direction::forward) {
      queue.forward(c_.call, input_views_, *output_);
    } else {
      queue.backward(c_.call, input_views_, *output_, *cotangent_, grad_views_);
    }
  });
}

}  // namespace gp
