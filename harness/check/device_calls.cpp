#include "harness/check/device_calls.hpp"

#include <chrono>
#include <optional>

#include "core/error.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/check/poison.hpp"

namespace gp {

HostTensor input_buffer(const OpCall& call, std::size_t k, const HostTensor& values) {
  const StridedLayout* layout = input_layout(call, k);
  if (!layout) return values;
  HostTensor storage = to_storage(values, *layout, poison_tensor(values.dtype(), input_buffer_shape(call, k)));
  if (first_bitwise_difference(from_storage(storage, values.shape(), *layout), values) >= 0)
    throw Error(call.case_id + ": input " + std::to_string(k) + "'s values are not what its view (" +
                describe(*layout) + ") can hold: elements it shares differ");
  return storage;
}

std::vector<std::unique_ptr<DeviceBuffer>> DeviceCalls::upload_all(const std::vector<HostTensor>& inputs, int k,
                                                                   const HostTensor* replacement) {
  std::vector<std::unique_ptr<DeviceBuffer>> bufs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const HostTensor& t = static_cast<int>(i) == k ? *replacement : inputs[i];
    // A contiguous input is uploaded as it is: a copy of a 2^31-element tensor costs seconds.
    std::optional<HostTensor> storage;
    if (input_layout(c_.call, i)) storage = input_buffer(c_.call, i, t);
    const HostTensor& buffer = storage ? *storage : t;
    bufs.push_back(backend_.allocate(buffer.dtype(), buffer.shape()));
    queue_.upload(*bufs.back(), buffer);
  }
  return bufs;
}

std::unique_ptr<DeviceBuffer> DeviceCalls::poisoned(DType dtype, const Shape& shape) {
  auto b = backend_.allocate(dtype, shape);
  queue_.upload(*b, poison_tensor(dtype, shape));
  return b;
}

namespace {
std::vector<const DeviceBuffer*> views(const std::vector<std::unique_ptr<DeviceBuffer>>& bufs) {
  std::vector<const DeviceBuffer*> v;
  v.reserve(bufs.size());
  for (const auto& b : bufs) v.push_back(b.get());
  return v;
}
// The downloaded tensors in the slots of the buffers that exist, empty tensors in the others.
std::vector<HostTensor> with_gaps(const std::vector<std::unique_ptr<DeviceBuffer>>& bufs, std::span<HostTensor> got) {
  std::vector<HostTensor> out;
  out.reserve(bufs.size());
  std::size_t next = 0;
  for (const auto& b : bufs) out.push_back(b ? std::move(got[next++]) : HostTensor());
  return out;
}

// Times one call between two synchronisations of the queue, when the caller asked for times.
class CallStopwatch {
 public:
  CallStopwatch(Queue& queue, DeviceCallsTimer& timer, DeviceCalls::CallTimes* times)
      : queue_(queue), timer_(timer), times_(times) {}
  void start() {
    if (!times_) return;
    queue_.finish();  // what was queued before the call is not its time
    timer_.lap();
    since_ = std::chrono::steady_clock::now();
  }
  double stop() {
    queue_.finish();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
    const std::optional<double> device = timer_.lap();
    times_->device_timer = device.has_value();
    return device.value_or(wall);
  }

 private:
  Queue& queue_;
  DeviceCallsTimer& timer_;
  DeviceCalls::CallTimes* times_;
  std::chrono::steady_clock::time_point since_;
};
}  // namespace

HostTensor DeviceCalls::run_forward(const std::vector<HostTensor>& inputs, int k, const HostTensor* replacement) {
  auto in = upload_all(inputs, k, replacement);
  auto out = poisoned(c_.dtype, c_.call.output_shape);
  queue_.forward(c_.call, views(in), *out);
  HostTensor y = queue_.download(*out);
  queue_.finish();
  return y;
}

HostTensor DeviceCalls::forward_with(const std::vector<HostTensor>& inputs, int k, const HostTensor& replacement) {
  DeviceCallsTimer timer(queue_);
  return run_forward(inputs, k, &replacement);
}

DeviceCalls::Result DeviceCalls::forward_backward(const std::vector<HostTensor>& inputs, const HostTensor& cotangent,
                                                  CallTimes* times) {
  DeviceCallsTimer timer(queue_);
  CallStopwatch stopwatch(queue_, timer, times);
  auto in = upload_all(inputs);
  auto in_views = views(in);
  auto out = poisoned(c_.dtype, c_.call.output_shape);
  stopwatch.start();
  queue_.forward(c_.call, in_views, *out);
  if (times) times->forward_seconds = stopwatch.stop();
  auto dout = backend_.allocate(c_.dtype, c_.call.output_shape);
  queue_.upload(*dout, cotangent);
  std::vector<std::unique_ptr<DeviceBuffer>> grads;
  std::vector<DeviceBuffer*> grad_views;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (input_is_differentiable(c_.decl.op, static_cast<int>(k))) {
      grads.push_back(poisoned(inputs[k].dtype(), inputs[k].shape()));
    } else {
      grads.push_back(nullptr);
    }
    grad_views.push_back(grads.back().get());
  }
  stopwatch.start();
  queue_.backward(c_.call, in_views, *out, *dout, grad_views);
  if (times) times->backward_seconds = stopwatch.stop();
  Result r;
  std::vector<const DeviceBuffer*> wanted = {out.get()};  // the output, then every gradient
  for (const auto& g : grads)
    if (g) wanted.push_back(g.get());
  std::vector<HostTensor> back = queue_.download_all(wanted);
  r.output = std::move(back.front());
  r.grads = with_gaps(grads, std::span(back).subspan(1));
  queue_.backward(c_.call, in_views, *out, *dout, grad_views);
  back = queue_.download_all(std::span(wanted).subspan(1));
  r.grads_again = with_gaps(grads, back);
  queue_.finish();
  return r;
}

}  // namespace gp
