// The poison the harness writes into every output and gradient buffer before a kernel runs. It
// is a quiet NaN with a payload of its own in each float dtype, so an element that a kernel never
// writes reads back as a non-finite value at its index, recognisably the harness's: whatever the
// allocator hands out (zeroed pages, an earlier call's data), a kernel that skips elements or
// accumulates into its output cannot pass.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace gp {

// A tensor of `dtype` and `shape` whose every element holds the poison bit pattern.
HostTensor poison_tensor(DType dtype, const Shape& shape);

// Whether element i of t still holds the poison bit pattern (the kernel never wrote it).
bool is_poison(const HostTensor& t, std::int64_t i);

// The first index at which a and b differ in any bit, or -1 when they are identical (same
// dtype, shape and bytes). Used to require that a repeated backward reproduces the first.
std::int64_t first_bitwise_difference(const HostTensor& a, const HostTensor& b);

}  // namespace gp
