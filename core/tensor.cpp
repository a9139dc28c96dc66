#include "core/tensor.hpp"

#include <cmath>
#include <cstdint>

namespace gp {

HostTensor::HostTensor(DType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)), data_(static_cast<std::size_t>(shape_.numel()) * dtype_size(dtype)) {}

double HostTensor::get(std::int64_t i) const {
  const std::byte* p = data_.data() + static_cast<std::size_t>(i) * dtype_size(dtype_);
  switch (dtype_) {
    case DType::f16: {
      std::uint16_t b;
      std::memcpy(&b, p, 2);
      return f16_to_double(b);
    }
    case DType::bf16: {
      std::uint16_t b;
      std::memcpy(&b, p, 2);
      return bf16_to_double(b);
    }
    case DType::f32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::f64: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    case DType::i32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
  return 0.0;
}

void HostTensor::set(std::int64_t i, double x) {
  std::byte* p = data_.data() + static_cast<std::size_t>(i) * dtype_size(dtype_);
  switch (dtype_) {
    case DType::f16: {
      std::uint16_t b = f16_from_double(x);
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::bf16: {
      std::uint16_t b = bf16_from_double(x);
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::f32: {
      float f = static_cast<float>(x);
      std::memcpy(p, &f, 4);
      return;
    }
    case DType::f64:
      std::memcpy(p, &x, 8);
      return;
    case DType::i32: {
      auto v = static_cast<std::int32_t>(std::nearbyint(x));  // ties to even, as round_to
      std::memcpy(p, &v, 4);
      return;
    }
  }
}

std::vector<double> HostTensor::to_doubles() const {
  std::vector<double> out(static_cast<std::size_t>(numel()));
  for (std::int64_t i = 0; i < numel(); ++i) out[static_cast<std::size_t>(i)] = get(i);
  return out;
}

}  // namespace gp
