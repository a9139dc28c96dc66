// Typed views of CPU buffers in a kernel's compute type. f32 and f64 buffers are used in place.
// f16/bf16 buffers are widened to float copies on the way in, and outputs computed into float
// scratch are rounded once (round-to-nearest-even, core's f16_from_float / bf16_from_float)
// into their buffers by commit().
#pragma once

#include <cstring>
#include <deque>
#include <type_traits>
#include <vector>

#include "backends/cpu/cpu_buffer.hpp"

namespace gp::cpu {

template <typename T>
class Staging {
 public:
  const T* input(const CpuBuffer& b) {
    if (in_place(b)) return reinterpret_cast<const T*>(b.data());
    auto& copy = scratch_.emplace_back(count(b));
    widen(b, copy);
    return copy.data();
  }

  // An output the kernel writes. A staged copy starts from the buffer's current values, so a
  // kernel that reads its output before writing it (accumulates) sees what an in-place kernel
  // would: the harness's poison, not a friendly zero.
  T* output(CpuBuffer& b) {
    if (in_place(b)) return reinterpret_cast<T*>(b.data());
    auto& copy = scratch_.emplace_back(count(b));
    widen(b, copy);
    pending_.push_back({&b, copy.data()});
    return copy.data();
  }

  // Rounds every staged output into its 16-bit buffer.
  void commit() {
    for (auto& [buffer, values] : pending_) {
      auto* bits = reinterpret_cast<std::uint16_t*>(buffer->data());
      std::size_t n = count(*buffer);
      for (std::size_t i = 0; i < n; ++i)
        bits[i] = buffer->dtype() == DType::f16 ? f16_from_float(values[i]) : bf16_from_float(values[i]);
    }
    pending_.clear();
  }

 private:
  static bool in_place(const CpuBuffer& b) {
    return (b.dtype() == DType::f32 && std::is_same_v<T, float>) ||
           (b.dtype() == DType::f64 && std::is_same_v<T, double>);
  }
  static void widen(const CpuBuffer& b, std::vector<T>& copy) {
    const auto* bits = reinterpret_cast<const std::uint16_t*>(b.data());
    for (std::size_t i = 0; i < copy.size(); ++i)
      copy[i] = b.dtype() == DType::f16 ? f16_to_float(bits[i]) : bf16_to_float(bits[i]);
  }
  static std::size_t count(const CpuBuffer& b) { return static_cast<std::size_t>(b.shape().numel()); }

  struct Pending {
    CpuBuffer* buffer;
    const T* values;
  };
  std::deque<std::vector<T>> scratch_;  // deque: growing it never moves earlier copies
  std::vector<Pending> pending_;
};

}  // namespace gp::cpu
