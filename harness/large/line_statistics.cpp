#include "harness/large/line_statistics.hpp"

#include "harness/check/phase_clock.hpp"

namespace gp {

std::int64_t serial_line_elements(const Case& c) {
  if (!ref::has_streamed_lines(c.call)) return 0;
  return split_at_axis(c.call.input_shapes.at(0), c.call.attrs.axis).n;
}

const ref::StreamedLineStatistics& LineStatisticsMemo::get(const OpCall& call, const HostTensor& input,
                                                           std::int64_t line, const MathProfile* profile, bool flush) {
  ProfileMemo<ref::StreamedLineStatistics>* memo = nullptr;
  {
    std::lock_guard lock(mutex_);
    memo = &lines_[line];
  }
  return memo->get(profile, flush, [&](bool* reads_profile) {
    PhaseTimer timer(Phase::bounds);
    const ref::ProfileReads reads;
    ref::StreamedLineStatistics s = ref::streamed_line_statistics(call, line, input, profile, flush);
    *reads_profile = reads.any();
    return s;
  });
}

}  // namespace gp
