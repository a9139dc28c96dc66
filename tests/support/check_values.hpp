// Small helpers of the judgement tests: a rank-1 host tensor of given values, and the check of one
// direction among a case's checks on a device.
#pragma once

#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/tensor.hpp"
#include "results/result.hpp"

namespace gp::testing {

inline HostTensor vector_of(DType dtype, const std::vector<double>& values) {
  HostTensor t(dtype, Shape{static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t.set(static_cast<std::int64_t>(i), values[i]);
  return t;
}

inline CheckResult direction_of(const std::vector<CheckResult>& checks, Direction d) {
  for (const CheckResult& r : checks)
    if (r.direction == d) return r;
  throw Error("no such check");
}

}  // namespace gp::testing
