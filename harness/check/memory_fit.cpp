#include "harness/check/memory_fit.hpp"

#include <algorithm>

#include "core/memory_size.hpp"
#include "harness/check/complete_kind.hpp"
#include "reference/element_slice.hpp"

namespace gp {

std::int64_t large_case_host_bytes(const Case& c, const DeviceInfo& device) {
  if (!device.host_memory) return 2 * device_bytes(c);
  // The buffers, and f32 working copies of them where a 16-bit call makes them (twice their bytes,
  // and more: see the header).
  return (dtype_size(c.call.dtype) == 2 ? 6 : 4) * device_bytes(c);
}

namespace {

// The checked tensors' sizes: the output, then each differentiable input's gradient (kOutputTensor, k).
template <class Fn>
void for_each_checked_tensor(const Case& c, const Fn& fn) {
  fn(ref::kOutputTensor, c.call.output_shape.numel());
  for (std::size_t k = 0; k < c.call.input_shapes.size(); ++k)
    if (input_is_differentiable(c.call.kind, static_cast<int>(k)))
      fn(static_cast<int>(k), c.call.input_shapes[k].numel());
}

}  // namespace

std::int64_t complete_check_host_bytes(const Case& c, const SampleOptions& limits) {
  std::int64_t bytes = 0;
  for_each_checked_tensor(c, [&](int tensor, std::int64_t numel) {
    if (line_check_kind(c.call, tensor, numel, limits) == LineCheck::kept) bytes += 88 * numel;
  });
  return bytes;
}

std::int64_t streamed_check_host_bytes(const Case& c, const SampleOptions& limits, int threads) {
  bool streamed = false;
  for_each_checked_tensor(c, [&](int tensor, std::int64_t numel) {
    streamed = streamed || line_check_kind(c.call, tensor, numel, limits) == LineCheck::streamed;
  });
  return streamed ? std::int64_t{threads} * kCompleteBlockElements * 600 : 0;
}

Support fits_in_memory(const Case& c, const DeviceInfo& device, std::int64_t host_bytes) {
  const std::int64_t buffers = device_bytes(c);
  if (device.memory_bytes > 0 && buffers > device.memory_bytes)
    return Support::no("its buffers need " + memory_text(buffers) + " of device memory; the device has " +
                       memory_text(device.memory_bytes));
  if (device.max_buffer_bytes > 0) {
    std::int64_t largest = c.call.output_shape.numel() * static_cast<std::int64_t>(dtype_size(c.call.dtype));
    for (std::size_t k = 0; k < c.call.input_shapes.size(); ++k)
      largest = std::max(
          largest, c.call.input_shapes[k].numel() * static_cast<std::int64_t>(dtype_size(c.call.input_dtypes[k])));
    if (largest > device.max_buffer_bytes)
      return Support::no("a tensor of " + memory_text(largest) + " exceeds the device's largest buffer (" +
                         memory_text(device.max_buffer_bytes) + ")");
  }
  if (c.decl.tier == Tier::large && host_bytes > 0 && large_case_host_bytes(c, device) > host_bytes)
    return Support::no("its host copies need about " + memory_text(large_case_host_bytes(c, device)) +
                       " (inputs, cotangent, the device's results, its buffers where they are in host memory); this "
                       "machine has " +
                       memory_text(host_bytes));
  return Support::yes();
}

}  // namespace gp
