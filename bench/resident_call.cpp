#include "bench/resident_call.hpp"

#include <chrono>

namespace gp {

ResidentCall::ResidentCall(const Case& c, Backend& backend, Queue& queue, const std::vector<HostTensor>& inputs,
                           const HostTensor& cotangent)
    : c_(c) {
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    inputs_.push_back(backend.allocate(inputs[k].dtype(), inputs[k].shape()));
    queue.upload(*inputs_.back(), inputs[k]);
    input_views_.push_back(inputs_.back().get());
    const bool differentiable = input_is_differentiable(c.decl.op, static_cast<int>(k));
    grads_.push_back(differentiable ? backend.allocate(inputs[k].dtype(), inputs[k].shape()) : nullptr);
    grad_views_.push_back(grads_.back().get());
  }
  output_ = backend.allocate(c.dtype, c.call.output_shape);
  cotangent_ = backend.allocate(c.dtype, c.call.output_shape);
  queue.upload(*cotangent_, cotangent);
  enqueue(queue, Direction::forward);
  queue.finish();
  queue.take_device_seconds();  // the uploads and the first call are not a timed call's
}

void ResidentCall::enqueue(Queue& queue, Direction direction) {
  if (direction == Direction::forward) {
    queue.forward(c_.call, input_views_, *output_);
  } else {
    queue.backward(c_.call, input_views_, *output_, *cotangent_, grad_views_);
  }
}

ResidentCall::Timed ResidentCall::run(Queue& queue, Direction direction) {
  const auto since = std::chrono::steady_clock::now();
  enqueue(queue, direction);
  queue.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  const std::optional<double> device = queue.take_device_seconds();
  return {device.value_or(wall), device.has_value()};
}

}  // namespace gp
