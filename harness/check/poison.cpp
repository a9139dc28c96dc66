#include "harness/check/poison.hpp"

#include <cstring>

namespace gp {

namespace {

// Quiet NaNs (exponent all ones, top mantissa bit set) with a payload no arithmetic produces
// by itself: a default NaN from 0/0 or inf-inf carries no payload.
constexpr std::uint16_t kPoisonF16 = 0x7E5A;
constexpr std::uint16_t kPoisonBF16 = 0x7FDA;
constexpr std::uint32_t kPoison32 = 0x7FDEAD00u;  // f32, and i32 buffers alike
constexpr std::uint64_t kPoisonF64 = 0x7FFDEAD00BAD0000ull;

template <typename Bits>
void fill(HostTensor& t, Bits pattern) {
  std::byte* p = t.data();
  for (std::size_t off = 0; off + sizeof(Bits) <= t.bytes(); off += sizeof(Bits))
    std::memcpy(p + off, &pattern, sizeof(Bits));
}

template <typename Bits>
bool holds(const HostTensor& t, std::int64_t i, Bits pattern) {
  Bits v;
  std::memcpy(&v, t.data() + static_cast<std::size_t>(i) * sizeof(Bits), sizeof(Bits));
  return v == pattern;
}

}  // namespace

HostTensor poison_tensor(DType dtype, const Shape& shape) {
  HostTensor t(dtype, shape);
  switch (dtype) {
    case DType::f16:
      fill(t, kPoisonF16);
      break;
    case DType::bf16:
      fill(t, kPoisonBF16);
      break;
    case DType::f64:
      fill(t, kPoisonF64);
      break;
    default:
      fill(t, kPoison32);
  }
  return t;
}

bool is_poison(const HostTensor& t, std::int64_t i) {
  if (i < 0 || i >= t.numel()) return false;
  switch (t.dtype()) {
    case DType::f16:
      return holds(t, i, kPoisonF16);
    case DType::bf16:
      return holds(t, i, kPoisonBF16);
    case DType::f64:
      return holds(t, i, kPoisonF64);
    default:
      return holds(t, i, kPoison32);
  }
}

std::int64_t first_bitwise_difference(const HostTensor& a, const HostTensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return 0;
  if (a.bytes() == 0 || std::memcmp(a.data(), b.data(), a.bytes()) == 0) return -1;  // one pass where all agree
  const std::size_t width = dtype_size(a.dtype());
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const std::size_t off = static_cast<std::size_t>(i) * width;
    if (std::memcmp(a.data() + off, b.data() + off, width) != 0) return i;
  }
  return -1;
}

}  // namespace gp
