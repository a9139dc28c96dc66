// The large tier's complete check of a matrix product (docs/scale.md, "Every element"): beside
// the sampled check, which judges a sample of a GEMM's or linear layer's output and gradients with
// their Tracked bounds, every element of each is compared with the reference's value from host
// GEMMs and a bound at or above its Tracked one (reference/product_bound.hpp). A wrong element
// anywhere fails it, not only one that the sample holds.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cases/case.hpp"
#include "core/tensor.hpp"
#include "harness/check/context.hpp"
#include "harness/check/tolerance.hpp"
#include "results/result.hpp"

namespace gp {

struct SampledReference;
struct SampledTensor;

// Every element of one tensor's reference, for every device: its value and its bound's channels
// (rounded up to double; acc is infinite: the checked bound takes lambda * prob), 32 bytes an
// element (a 4096 x 4096 tensor: 537 MB).
struct CompleteReference {
  bool applies = false;  // false: the op has no product form (not a 2-D matmul or linear)
  std::string refusal;   // why the bound cannot be computed (then no values)
  std::int64_t rows = 0, cols = 0;
  std::vector<long double> value;
  std::vector<double> prob, spec, single;  // single: a one-term sum's rounding (empty otherwise)
};

// The complete references of one case's tensors, computed by the first device that asks and
// shared with the others (the bound reads no device profile). Thread-safe.
class CompleteReferences {
 public:
  const CompleteReference& get(const SampledReference& reference, const SampledTensor& tensor, DType dtype);

 private:
  struct Entry {
    std::once_flag once;
    CompleteReference value;
  };
  std::mutex mutex_;
  std::map<int, std::shared_ptr<Entry>> entries_;
};

struct CompleteCheckInput {
  const Case& c;
  const std::string& device_id;
  const SampledReference& reference;
  const SampledTensor& tensor;
  const HostTensor& full;  // the device's whole tensor
  const Tolerance& tol;
};

// The complete check of one tensor, or nullopt for an op without a product form. Direction
// forward_complete or backward_complete; `metrics.detection_threshold` its largest bound over the
// tensor's largest magnitude.
std::optional<CheckResult> complete_product_check(const CompleteCheckInput& in, std::uint64_t seed);

}  // namespace gp
