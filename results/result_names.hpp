// Text names of the result enums (results/result.hpp declares the writers; this adds the
// parsers readers need). The names are part of the parity.json schema: never rename one.
#pragma once

#include <optional>
#include <string_view>

#include "results/result.hpp"

namespace gp {

inline constexpr Verdict kAllVerdicts[] = {Verdict::pass, Verdict::fail, Verdict::skip, Verdict::mistrusted,
                                           Verdict::error};
inline constexpr Direction kAllDirections[] = {
    Direction::forward,           Direction::backward,          Direction::numerical_reference,
    Direction::numerical_backend, Direction::surrogate,         Direction::node,
    Direction::forward_complete,  Direction::backward_complete, Direction::refusal};

inline constexpr ReasonKind kAllReasonKinds[] = {
    ReasonKind::none,          ReasonKind::covered,     ReasonKind::unsupported,      ReasonKind::unavailable,
    ReasonKind::device_failed, ReasonKind::device_lost, ReasonKind::reference_failed, ReasonKind::device_error};

std::optional<Verdict> parse_verdict(std::string_view name);           // "PASS" -> Verdict::pass
std::optional<Direction> parse_direction(std::string_view name);       // "backward" -> Direction::backward
std::optional<SubjectKind> parse_subject_kind(std::string_view name);  // "model" -> SubjectKind::model
std::optional<ReasonKind> parse_reason_kind(std::string_view name);    // "covered" -> ReasonKind::covered

// A SKIP a user has to act on (an op a backend lacks, a missing device), as opposed to a check
// the design leaves out because a stronger one judges the same result (ReasonKind::covered).
bool needs_action(const CheckResult& c);

}  // namespace gp
