// Where a run's time went: the seconds each phase of the checks took, per subject kind, summed
// over the worker threads (harness/check/phase_clock.hpp measures them). A phase's time excludes
// the phases nested in it, so the rows add up to the workers' busy time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "results/subject_kind.hpp"

namespace gp {

enum class Phase : std::uint8_t {
  inputs,            // drawing the seeded inputs and cotangents (a model's leaves)
  reference,         // the reference's values and gradients in long double
  bounds,            // Tracked evaluations: the per-element bounds of a device profile
  reference_checks,  // the reference's own numerical checks (backend "reference")
  oracle_sample,     // the sampled check of the reference against MPFR
  device_calls,      // uploads, kernels, downloads: host wall time of every device call
  comparisons,       // judging what a device computed (comparisons, finite differences' sums)
  other,             // the rest of a subject's time on a worker (lookups, result assembly)
};
inline constexpr Phase kAllPhases[] = {Phase::inputs,           Phase::reference,     Phase::bounds,
                                       Phase::reference_checks, Phase::oracle_sample, Phase::device_calls,
                                       Phase::comparisons,      Phase::other};
inline constexpr std::size_t kPhaseCount = std::size(kAllPhases);
inline constexpr std::size_t kSubjectKindCount = std::size(kAllSubjectKinds);

std::string_view phase_name(Phase p);  // "inputs", "reference", ..., schema names
std::optional<Phase> parse_phase(std::string_view name);

struct PhaseProfile {
  std::array<std::array<double, kSubjectKindCount>, kPhaseCount> seconds{};
  // The devices' own time for the checks' calls, per subject kind, by the APIs' timers (OpenCL
  // profiling events of the kernels, Vulkan timestamps around each submission); devices
  // without timers (the cpu backend, plugins) add nothing. Part of device_calls' wall time.
  std::array<double, kSubjectKindCount> device_seconds{};
  int workers = 0;             // the threads that ran the checks (--jobs); 0: not measured
  double reports_seconds = 0;  // writing the reports other than parity.json itself
  // The process's peak resident memory (getrusage), 0: not measured; merged shards: the largest.
  std::int64_t peak_host_bytes = 0;

  double& at(Phase p, SubjectKind k) { return seconds[static_cast<std::size_t>(p)][static_cast<std::size_t>(k)]; }
  double at(Phase p, SubjectKind k) const { return seconds[static_cast<std::size_t>(p)][static_cast<std::size_t>(k)]; }
  double phase_total(Phase p) const;
  double kind_total(SubjectKind k) const;
  double total() const;  // every phase and kind, the reports excluded
  double device_total() const;
  bool empty() const { return workers == 0; }
  PhaseProfile& operator+=(const PhaseProfile& o);
};

}  // namespace gp
