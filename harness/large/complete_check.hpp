// The large tier's complete check of a matrix product (docs/scale.md, "Every element"): beside
// the sampled check, which judges a sample of a GEMM's or linear layer's output and gradients with
// their Tracked bounds, every element of each is compared with the reference's value from host
// GEMMs in double and a bound at or above its Tracked one (reference/product_bound.hpp), in blocks
// of rows. A wrong element anywhere fails it, not only one that the sample holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cases/case.hpp"
#include "core/tensor.hpp"
#include "harness/check/tolerance.hpp"
#include "harness/large/sampled_reference.hpp"
#include "results/result.hpp"

namespace gp {

// The elements one block of rows holds at most: a block's reference (value and bound) is about
// 80 bytes an element.
inline constexpr std::int64_t kCompleteBlockElements = std::int64_t{1} << 18;

struct CompleteCheckInput {
  const Case& c;
  const std::string& device_id;
  const SampledReference& reference;
  const SampledTensor& tensor;
  const HostTensor& full;  // the device's whole tensor
  const Tolerance& tol;
  const MathProfile& math;
};

// The complete check of one tensor, or nullopt for an op without a product form (not a 2-D
// matmul or linear). Direction forward_complete or backward_complete; `metrics.detection` the
// largest bound relative to the tensor's largest magnitude.
std::optional<CheckResult> complete_product_check(const CompleteCheckInput& in, std::uint64_t seed);

}  // namespace gp
