// The large tier's complete checks (complete_check.hpp, complete_lines.hpp) compare a whole tensor
// in blocks on every core: each block with the small tier's comparison, the tensor's verdict and
// metrics merged from the blocks, and what the check can detect stated with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/tolerance.hpp"
#include "reference/reference.hpp"
#include "results/result.hpp"

namespace gp {

// The relative error of one element that a complete check reports its power against (issue 26:
// one element off by 10^-3 anywhere in a 4096 x 4096 result).
inline constexpr double kProbeRelativeError = 1e-3;

// One block compared: its comparison, and what the whole tensor's metrics add up from it.
struct BlockResult {
  Comparison cmp;
  double err2 = 0, ref2 = 0, largest_value = 0, largest_bound = 0;
  std::int64_t caught = 0;  // elements where an error of kProbeRelativeError of their value fails
};

BlockResult compare_block(const ref::RefTensor& expected, const HostTensor& got, const Tolerance& tol, DType dtype,
                          const SamplePositions& positions);

// The blocks as one complete check of a tensor of `numel` elements: verdict, reason and metrics
// (detection_threshold: the largest bound over the largest magnitude), and the tolerance text:
// `how` the bounds come about, then what an error fails.
void judge_blocks(CheckResult& r, const std::vector<BlockResult>& blocks, std::int64_t numel, const Tolerance& tol,
                  const std::string& how);

}  // namespace gp
