// Which elements of a large tensor are compared exactly with the reference (docs/scale.md): every
// place where a kernel's tiles, work-groups or vector lanes meet, and random ones. Along each
// dimension of n the candidates are the first two and last two indices, t m - 1, t m, t m + 1
// for every multiple t m of the step m (16 covers the tiles of 16, 32, 64, 128 and 256: their
// edges are multiples of 16; past kMaxBoundaryTiles tiles of 16, as along 10^8 elements, the
// least power of two that keeps that many), and the first element of the last tile of every
// power-of-two size from 16 (the last partial tile), +-1; each candidate is sampled once
// with the other dimensions at their own candidates in turn, so every boundary row meets
// boundary columns and no dimension is left at 0. Then every corner, the inputs' extremes, then
// `random` elements drawn from the seed. Sorted and unique: a tensor with fewer elements than the sample is
// compared whole.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/shape.hpp"
#include "core/tensor.hpp"
#include "harness/check/context.hpp"

namespace gp {

// The boundary candidates along one dimension of n elements, ascending, and their step.
// Dimensions up to 65,536 have every multiple of 16 (the large tier's GEMMs); 3 * 4096 candidates
// is what a 10^8-element tensor can afford to evaluate (every multiple of 16 there was 1.9 * 10^7
// elements, 97 s of Tracked bounds for exp and tanh on one core).
inline constexpr std::int64_t kMaxBoundaryTiles = 4096;
std::int64_t boundary_step(std::int64_t n);
std::vector<std::int64_t> boundary_indices(std::int64_t n);

// The flat indices of the sample of a tensor of `shape`, ascending; `stream` names the tensor
// (the case id and which tensor) so that each gets its own random elements. `extremes` (the
// inputs' own, extreme_indices) are added: where a max sends its gradient, where an elementwise
// op meets its largest argument.
std::vector<std::int64_t> sample_elements(const Shape& shape, const SampleOptions& options, std::uint64_t seed,
                                          std::string_view stream, const std::vector<std::int64_t>& extremes = {});

// Elements `at` of `full` as a tensor of `shape` (at.size() elements), in the same dtype.
HostTensor gather_elements(const HostTensor& full, const std::vector<std::int64_t>& at, const Shape& shape);

// The largest and the smallest element of every row (along the last dimension) of `x`, or of
// the whole tensor when it has more than kExtremeRows rows.
inline constexpr std::int64_t kExtremeRows = 65536;
std::vector<std::int64_t> extreme_indices(const HostTensor& x);

}  // namespace gp
