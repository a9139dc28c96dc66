// Host tensors: a dtype, a shape and the raw bytes in that dtype's storage format. The harness
// fills them once and hands the same bytes to the reference (widened exactly) and to backends.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "core/dtype.hpp"
#include "core/host_bytes.hpp"
#include "core/shape.hpp"

namespace gp {

class HostTensor {
 public:
  HostTensor() = default;
  HostTensor(DType dtype, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::int64_t numel() const { return shape_.numel(); }
  std::size_t bytes() const { return data_.size(); }
  std::byte* data() { return data_.data(); }
  const std::byte* data() const { return data_.data(); }

  // Element i widened exactly to double (every supported dtype fits in double).
  double get(std::int64_t i) const;
  // Stores x rounded correctly to the tensor's dtype.
  void set(std::int64_t i, double x);
  std::vector<double> to_doubles() const;

  // Typed view for kernels that work on the storage type directly (f32, f64, i32).
  template <typename T>
  std::span<T> as() {
    return {reinterpret_cast<T*>(data_.data()), data_.size() / sizeof(T)};
  }
  template <typename T>
  std::span<const T> as() const {
    return {reinterpret_cast<const T*>(data_.data()), data_.size() / sizeof(T)};
  }

 private:
  DType dtype_ = DType::f32;
  Shape shape_;
  HostBytes data_;
};

}  // namespace gp
