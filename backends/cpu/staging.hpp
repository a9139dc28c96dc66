// Typed views of CPU buffers in a kernel's compute type. f32 and f64 buffers are used in place.
// f16/bf16 buffers are widened to float copies on the way in, and outputs computed into float
// scratch are rounded once (round-to-nearest-even, core's f16_from_float / bf16_from_float)
// into their buffers by commit(). Both conversions go element by element, on every core for a
// large buffer (threaded.hpp), into copies that are not zeroed first: with them on one thread, an
// exp over 2^31 bf16 elements took 77.9 s a forward call and 91.3 s a backward on the H200.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <type_traits>
#include <vector>

#include "backends/cpu/cpu_buffer.hpp"
#include "backends/cpu/kernels/threaded.hpp"

namespace gp::cpu {

template <typename T>
class Staging {
 public:
  const T* input(const CpuBuffer& b) {
    if (in_place(b)) return reinterpret_cast<const T*>(b.data());
    return widened(b);
  }

  // An output the kernel writes. A staged copy starts from the buffer's current values, so a
  // kernel that reads its output before writing it (accumulates) sees what an in-place kernel
  // would: the harness's poison, not a friendly zero.
  T* output(CpuBuffer& b) {
    if (in_place(b)) return reinterpret_cast<T*>(b.data());
    T* copy = widened(b);
    pending_.push_back({&b, copy});
    return copy;
  }

  // Rounds every staged output into its 16-bit buffer.
  void commit() {
    for (auto& [buffer, values] : pending_) {
      auto* bits = reinterpret_cast<std::uint16_t*>(buffer->data());
      const bool f16 = buffer->dtype() == DType::f16;
      for_element_ranges(count(*buffer), [&, values = values](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i)
          bits[i] = f16 ? f16_from_float(values[i]) : bf16_from_float(values[i]);
      });
    }
    pending_.clear();
  }

 private:
  static bool in_place(const CpuBuffer& b) {
    return (b.dtype() == DType::f32 && std::is_same_v<T, float>) ||
           (b.dtype() == DType::f64 && std::is_same_v<T, double>);
  }
  // A float copy of a 16-bit buffer, kept until the staging ends.
  T* widened(const CpuBuffer& b) {
    const std::int64_t n = count(b);
    T* copy = scratch_.emplace_back(new T[static_cast<std::size_t>(n)]).get();  // every element written below
    const auto* bits = reinterpret_cast<const std::uint16_t*>(b.data());
    const bool f16 = b.dtype() == DType::f16;
    for_element_ranges(n, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) copy[i] = f16 ? f16_to_float(bits[i]) : bf16_to_float(bits[i]);
    });
    return copy;
  }
  static std::int64_t count(const CpuBuffer& b) { return b.shape().numel(); }

  struct Pending {
    CpuBuffer* buffer;
    const T* values;
  };
  std::deque<std::unique_ptr<T[]>> scratch_;
  std::vector<Pending> pending_;
};

}  // namespace gp::cpu
