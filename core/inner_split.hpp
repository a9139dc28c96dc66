// How the backends' tiled GEMMs split a long inner size between work groups (split K): a product
// of fewer than kFewTiles output tiles with an inner size of at least kLongInner, 64 x 64 outputs
// of 65,536-term dot products say, would otherwise run on a handful of groups. Its inner size is
// cut into slices (multiples of the tile, at least kLeastSlice long) so that about kTargetGroups
// groups run; a second pass adds the slices' partial tiles in slice order. The small tier's
// products (inner sizes up to 4,096) are not split. One policy for every backend that tiles.
#pragma once

#include <algorithm>
#include <cstdint>

namespace gp {

struct InnerSplit {
  std::int64_t slices = 1;  // 1: not split
  std::int64_t slice = 0;   // inner indices per slice (the last one may be shorter)
};

inline InnerSplit inner_split(std::int64_t output_tiles, std::int64_t inner, std::int64_t tile) {
  constexpr std::int64_t kFewTiles = 64, kLongInner = 8192, kTargetGroups = 1024, kLeastSlice = 1024;
  if (output_tiles >= kFewTiles || inner < kLongInner || output_tiles < 1) return {1, std::max<std::int64_t>(inner, 1)};
  const std::int64_t wanted =
      std::clamp<std::int64_t>((kTargetGroups + output_tiles - 1) / output_tiles, 1, inner / kLeastSlice);
  const std::int64_t slice = ((inner + wanted - 1) / wanted + tile - 1) / tile * tile;
  return {(inner + slice - 1) / slice, slice};
}

}  // namespace gp
