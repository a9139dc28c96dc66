// A max reduction's rows whose maximum ties (two or more entries equal to it, no NaN in the row),
// each as the flat positions of its tied maxima in order: where the judgement accepts any one of
// them or an even split (other_readings.cpp) and finite differences hold them still (numerical.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "core/op.hpp"

namespace gp {

// `x` is the input's values, flat (x[i] for i below the shape's element count).
template <class Values>
std::vector<std::vector<std::size_t>> tied_maxima(const Shape& shape, int axis, const Values& x) {
  const AxisSplit s = split_at_axis(shape, axis);
  std::vector<std::vector<std::size_t>> rows;
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i) {
      auto flat = [&](std::int64_t j) { return static_cast<std::size_t>((o * s.n + j) * s.inner + i); };
      auto top = -std::numeric_limits<std::decay_t<decltype(x[0])>>::infinity();
      bool nan = false;
      for (std::int64_t j = 0; j < s.n; ++j) {
        nan = nan || std::isnan(x[flat(j)]);
        top = std::max(top, x[flat(j)]);
      }
      std::vector<std::size_t> tied;
      for (std::int64_t j = 0; j < s.n; ++j)
        if (x[flat(j)] == top) tied.push_back(flat(j));
      if (!nan && tied.size() > 1) rows.push_back(std::move(tied));
    }
  return rows;
}

}  // namespace gp
