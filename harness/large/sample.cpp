#include "harness/large/sample.hpp"

#include <algorithm>

#include "core/parallel_blocks.hpp"
#include "harness/check/rng.hpp"

namespace gp {

namespace {

// Tile edges are multiples of this (every power of two from 16 up is one).
constexpr std::int64_t kTileStep = 16;
// A line of more elements is scanned for its extremes in blocks on every core.
constexpr std::int64_t kOneThreadScan = std::int64_t{1} << 24, kScanBlock = std::int64_t{1} << 22;

std::int64_t flat(const Shape& shape, const std::vector<std::int64_t>& at) {
  std::int64_t i = 0;
  for (int d = 0; d < shape.rank(); ++d) i = i * shape[d] + at[static_cast<std::size_t>(d)];
  return i;
}

}  // namespace

std::int64_t boundary_step(std::int64_t n) {
  std::int64_t step = kTileStep;
  while (n / step > kMaxBoundaryTiles) step *= 2;
  return step;
}

std::vector<std::int64_t> boundary_indices(std::int64_t n) {
  std::vector<std::int64_t> out = {0, 1, n - 2, n - 1};
  const std::int64_t step = boundary_step(n);
  for (std::int64_t t = step; t < n; t += step)
    for (std::int64_t i : {t - 1, t, t + 1}) out.push_back(i);
  // The first element of the last tile, partial or not, for every power-of-two tile: past the
  // step, the multiples above do not hold them all.
  for (std::int64_t tile = kTileStep; tile < n; tile *= 2) {
    const std::int64_t last = (n - 1) / tile * tile;
    for (std::int64_t i : {last - 1, last, last + 1}) out.push_back(i);
  }
  std::erase_if(out, [n](std::int64_t i) { return i < 0 || i >= n; });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

HostTensor gather_elements(const HostTensor& full, const std::vector<std::int64_t>& at, const Shape& shape) {
  HostTensor part(full.dtype(), shape);
  for (std::size_t i = 0; i < at.size(); ++i) part.set(static_cast<std::int64_t>(i), full.get(at[i]));
  return part;
}

std::vector<std::int64_t> extreme_indices(const HostTensor& x) {
  const std::int64_t numel = x.numel();
  if (numel == 0) return {};
  const std::int64_t row = x.shape().rank() > 0 ? x.shape()[x.shape().rank() - 1] : 1;
  const std::int64_t rows = numel / row;
  const std::int64_t length = rows > kExtremeRows ? numel : row;
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(2 * (numel / length)));
  // The first index of the largest and of the smallest value of [begin, end).
  auto scan = [&x](std::int64_t begin, std::int64_t end) {
    std::int64_t high = begin, low = begin;
    double highest = x.get(begin), lowest = highest;  // x.get(high), x.get(low): one read an element
    for (std::int64_t i = begin + 1; i < end; ++i) {
      const double v = x.get(i);
      if (v > highest) {
        high = i;
        highest = v;
      }
      if (v < lowest) {
        low = i;
        lowest = v;
      }
    }
    return std::pair{high, low};
  };
  // A line past kOneThreadScan elements: its blocks on every core, then the blocks' extremes in
  // order, so that the first index still wins a tie.
  auto scan_line = [&](std::int64_t first) {
    if (length <= kOneThreadScan) return scan(first, first + length);
    std::vector<std::pair<std::int64_t, std::int64_t>> parts(
        static_cast<std::size_t>((length + kScanBlock - 1) / kScanBlock));
    for_each_block(length, kScanBlock, [&](std::int64_t block, std::int64_t begin, std::int64_t end) {
      parts[static_cast<std::size_t>(block)] = scan(first + begin, first + end);
    });
    std::pair<std::int64_t, std::int64_t> best = parts.front();
    for (const auto& [high, low] : parts) {
      if (x.get(high) > x.get(best.first)) best.first = high;
      if (x.get(low) < x.get(best.second)) best.second = low;
    }
    return best;
  };
  for (std::int64_t first = 0; first < numel; first += length) {
    const auto [high, low] = scan_line(first);
    out.push_back(high);
    out.push_back(low);
  }
  return out;
}

std::vector<std::int64_t> sample_elements(const Shape& shape, const SampleOptions& options, std::uint64_t seed,
                                          std::string_view stream, const std::vector<std::int64_t>& extremes) {
  const std::int64_t numel = shape.numel();
  std::vector<std::int64_t> out;
  if (numel == 0) return out;
  const int rank = shape.rank();
  std::vector<std::vector<std::int64_t>> candidates(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) candidates[static_cast<std::size_t>(d)] = boundary_indices(shape[d]);
  std::vector<std::int64_t> at(static_cast<std::size_t>(rank));
  std::size_t total = static_cast<std::size_t>(options.random) + (std::size_t{1} << rank) + extremes.size();
  for (const auto& c : candidates) total += c.size();
  out.reserve(total);
  // Candidate c of dimension d, the others at their candidates (c * (e + 1) + e) in turn.
  for (int d = 0; d < rank; ++d) {
    const auto& own = candidates[static_cast<std::size_t>(d)];
    for (std::size_t c = 0; c < own.size(); ++c) {
      for (int e = 0; e < rank; ++e) {
        const auto& other = candidates[static_cast<std::size_t>(e)];
        at[static_cast<std::size_t>(e)] =
            e == d ? own[c] : other[(c * static_cast<std::size_t>(e + 1) + static_cast<std::size_t>(e)) % other.size()];
      }
      out.push_back(flat(shape, at));
    }
  }
  for (std::int64_t corner = 0; corner < (std::int64_t{1} << rank); ++corner) {
    for (int d = 0; d < rank; ++d) at[static_cast<std::size_t>(d)] = (corner >> d) & 1 ? shape[d] - 1 : 0;
    out.push_back(flat(shape, at));
  }
  out.insert(out.end(), extremes.begin(), extremes.end());
  Rng rng = Rng::for_case(seed, stream, "sample");
  for (std::int64_t r = 0; r < options.random; ++r)
    out.push_back(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(numel))));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gp
