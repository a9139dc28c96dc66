// Large calls on every core. A production CPU library splits big GEMMs and long elementwise
// loops between threads; one thread left the large tier's 4096^3 products at half a minute each
// (docs/scale.md). Only what splits without changing a result's arithmetic is split: an
// elementwise loop (each element computed alone), and a matrix product by rows of its output
// (each row's dot products are the same whichever thread computes them, for a fixed block of
// rows). The blocks are fixed sizes, not a share per thread, so a result does not depend on the
// machine's core count; calls below the thresholds (every small-tier call) run on the calling
// thread as before. Accumulations (reductions, a broadcast operand's gradient) stay serial: their
// order is the kernel's.
#pragma once

#include <cstdint>

#include "core/parallel_blocks.hpp"

namespace gp::cpu {

// Elementwise loops of at least this many elements run in blocks of kElementBlock.
inline constexpr std::int64_t kThreadedElements = std::int64_t{1} << 22;
inline constexpr std::int64_t kElementBlock = std::int64_t{1} << 18;
// Matrix products of at least this many multiply-adds run in blocks of kRowBlock output rows.
inline constexpr std::int64_t kThreadedMultiplyAdds = std::int64_t{1} << 27;
inline constexpr std::int64_t kRowBlock = 64;

// fn(begin, end) over [0, n): at once below kThreadedElements, else block by block on every core.
template <typename Fn>
void for_element_ranges(std::int64_t n, const Fn& fn) {
  if (n < kThreadedElements) {
    fn(std::int64_t{0}, n);
    return;
  }
  for_each_block(n, kElementBlock, [&](std::int64_t, std::int64_t begin, std::int64_t end) { fn(begin, end); });
}

// out = lhs * rhs (Eigen expressions; out a writable map that aliases neither), by blocks of
// kRowBlock rows of out when the product is large.
template <typename Out, typename Lhs, typename Rhs>
void product_by_rows(Out out, const Lhs& lhs, const Rhs& rhs) {
  const std::int64_t rows = out.rows(), inner = lhs.cols();
  if (rows * out.cols() * inner < kThreadedMultiplyAdds) {
    out.noalias() = lhs * rhs;
    return;
  }
  for_each_block(rows, kRowBlock, [&](std::int64_t, std::int64_t begin, std::int64_t end) {
    out.middleRows(begin, end - begin).noalias() = lhs.middleRows(begin, end - begin) * rhs;
  });
}

}  // namespace gp::cpu
