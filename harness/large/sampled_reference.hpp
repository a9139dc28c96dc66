// A large case's reference at a seed (docs/scale.md): its full inputs and cotangent in the case
// dtype, the sampled elements of the output and of every input's gradient, and per device profile
// the reference's values and bounds there, each element from its slice (ref::element_slice):
// the same value and the same bound the whole evaluation would give that element, at the cost of
// the element alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cases/case.hpp"
#include "harness/check/context.hpp"
#include "harness/check/profile_memo.hpp"
#include "harness/large/sample.hpp"
#include "reference/element_slice.hpp"
#include "reference/reference.hpp"
#include "reference/streamed_line.hpp"

namespace gp {

class CompleteReferences;
class CompleteLineReferences;
class LineStatisticsMemo;
struct SliceSource;

// One checked tensor: the output (ref::kOutputTensor) or input `tensor`'s gradient.
struct SampledTensor {
  int tensor = ref::kOutputTensor;
  std::int64_t numel = 0;
  std::vector<std::int64_t> index;  // the sample, ascending flat indices
};

struct SampledReference {
  OpCall call;
  std::vector<HostTensor> inputs;
  HostTensor cotangent;
  std::vector<SampledTensor> tensors;  // the output, then each differentiable input's gradient
  ReferenceCache* cache = nullptr;
  std::string cache_id;
  std::uint64_t seed = 0;
  // Every element's reference for the complete checks of a matrix product, shared by the devices
  // (harness/large/complete_check.hpp); prepare_sampled_reference sets it.
  std::shared_ptr<CompleteReferences> complete;
  // Every element's reference for the complete checks of the other ops, per device profile
  // (harness/large/complete_lines.hpp); prepare_sampled_reference sets it.
  std::shared_ptr<CompleteLineReferences> lines;
  // A reduction's line statistics, shared by the sample and the complete checks
  // (harness/large/line_statistics.hpp); prepare_sampled_reference sets it.
  std::shared_ptr<LineStatisticsMemo> line_statistics;

  // Per tensors[t]: the reference at its sampled elements, `err` the bound of a device with this
  // profile (`flush`: it may flush subnormal results). Computed on first use, thread-safe.
  const std::vector<ref::RefTensor>& bounded(const MathProfile* profile, bool flush) const;
  // What its slices gather from.
  SliceSource source() const;

 private:
  ProfileMemo<std::vector<ref::RefTensor>> bounded_;
};

SampledReference prepare_sampled_reference(const Case& c, const RunContext& run);

// What the slices of a call gather from: its whole inputs and cotangent, and where its lines'
// statistics are kept (null: computed for each use).
struct SliceSource {
  const OpCall& call;
  const std::vector<HostTensor>& inputs;
  const HostTensor& cotangent;
  LineStatisticsMemo* statistics = nullptr;

  // Line `line`'s statistics from `statistics` (computed there on first use); null without it.
  const ref::StreamedLineStatistics* known_statistics(std::int64_t line, const MathProfile* profile, bool flush) const;
  // The slice's inputs and cotangent, gathered and widened to the reference.
  struct Operands {
    std::vector<ref::RefTensor> inputs;
    ref::RefTensor cotangent;
  };
  Operands operands(const ref::ElementSlice& s) const;
};

// The reference at elements `index` of `tensor` under `profile`: one bounded evaluation per
// element's slice.
ref::RefTensor sampled_bounds(const SliceSource& source, int tensor, const std::vector<std::int64_t>& index,
                              const MathProfile* profile, bool flush);

}  // namespace gp
