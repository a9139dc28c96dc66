// The statistics of a large reduction's lines (ref::StreamedLineStatistics: a sum, a first
// maximum, a sum of centered squares), per line and device profile: computed once per case and
// read by its sample's output and gradient, its complete checks and every device whose profile
// the computation did not read (ProfileMemo). Each is a pass over the line in Tracked arithmetic,
// one core's work that no other order may share (the sum's bound follows its own partial sums):
// the variance over 2^27 elements passed over its line six times per device before.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include "cases/case.hpp"
#include "core/op.hpp"
#include "core/tensor.hpp"
#include "harness/check/profile_memo.hpp"
#include "reference/streamed_line.hpp"

namespace gp {

// The elements of the longest line a large case's reference passes over on one core (a streamed
// reduction's statistics), 0 where it has none: the run starts those cases first (work_items).
std::int64_t serial_line_elements(const Case& c);

class LineStatisticsMemo {
 public:
  // Line `line` of `call` over `input` (always the same input for one memo). Thread-safe.
  const ref::StreamedLineStatistics& get(const OpCall& call, const HostTensor& input, std::int64_t line,
                                         const MathProfile* profile, bool flush);

 private:
  std::mutex mutex_;
  std::map<std::int64_t, ProfileMemo<ref::StreamedLineStatistics>> lines_;  // elements stay put
};

}  // namespace gp
