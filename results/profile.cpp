#include "results/profile.hpp"

#include <algorithm>

#include "core/enum_table.hpp"

namespace gp {

namespace {
constexpr std::string_view kPhaseNames[] = {"inputs",        "reference",    "bounds",      "reference_checks",
                                            "oracle_sample", "device_calls", "comparisons", "other"};
static_assert(std::size(kPhaseNames) == kPhaseCount);
}  // namespace

std::string_view phase_name(Phase p) { return enum_row(kPhaseNames, p); }
std::optional<Phase> parse_phase(std::string_view name) { return enum_from_name<Phase>(name, kPhaseNames); }

double PhaseProfile::phase_total(Phase p) const {
  double s = 0;
  for (double v : seconds[static_cast<std::size_t>(p)]) s += v;
  return s;
}

double PhaseProfile::kind_total(SubjectKind k) const {
  double s = 0;
  for (Phase p : kAllPhases) s += at(p, k);
  return s;
}

double PhaseProfile::total() const {
  double s = 0;
  for (Phase p : kAllPhases) s += phase_total(p);
  return s;
}

double PhaseProfile::device_total() const {
  double s = 0;
  for (double v : device_seconds) s += v;
  return s;
}

PhaseProfile& PhaseProfile::operator+=(const PhaseProfile& o) {
  for (std::size_t p = 0; p < kPhaseCount; ++p)
    for (std::size_t k = 0; k < kSubjectKindCount; ++k) seconds[p][k] += o.seconds[p][k];
  for (std::size_t k = 0; k < kSubjectKindCount; ++k) device_seconds[k] += o.device_seconds[k];
  reports_seconds += o.reports_seconds;
  workers += o.workers;
  peak_host_bytes = std::max(peak_host_bytes, o.peak_host_bytes);
  return *this;
}

}  // namespace gp
