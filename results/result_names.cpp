// Defines the name functions declared in results/result.hpp and their inverses: one table of
// schema spellings per enum, in enum order (kAllVerdicts, kAllDirections, ...).
#include "results/result_names.hpp"

#include <iterator>
#include <string>

#include "core/enum_table.hpp"

namespace gp {

namespace {

constexpr std::string_view kVerdictNames[] = {"PASS", "FAIL", "SKIP", "MISTRUSTED", "ERROR"};
constexpr std::string_view kDirectionNames[] = {"forward",           "backward",          "numerical_reference",
                                                "numerical_backend", "surrogate",         "node",
                                                "forward_complete",  "backward_complete", "refusal"};
constexpr std::string_view kSubjectKindNames[] = {"primitive", "model", "training"};
constexpr std::string_view kReasonKindNames[] = {"none",          "covered",     "unsupported",      "unavailable",
                                                 "device_failed", "device_lost", "reference_failed", "device_error"};
static_assert(std::size(kVerdictNames) == std::size(kAllVerdicts));
static_assert(std::size(kDirectionNames) == std::size(kAllDirections));
static_assert(std::size(kSubjectKindNames) == std::size(kAllSubjectKinds));
static_assert(std::size(kReasonKindNames) == std::size(kAllReasonKinds));

}  // namespace

std::string_view verdict_name(Verdict v) { return enum_row(kVerdictNames, v); }
std::string_view direction_name(Direction d) { return enum_row(kDirectionNames, d); }
std::string_view subject_kind_name(SubjectKind k) { return enum_row(kSubjectKindNames, k); }
std::string_view reason_kind_name(ReasonKind k) { return enum_row(kReasonKindNames, k); }

std::optional<Verdict> parse_verdict(std::string_view name) { return enum_from_name<Verdict>(name, kVerdictNames); }
std::optional<Direction> parse_direction(std::string_view name) {
  return enum_from_name<Direction>(name, kDirectionNames);
}
std::optional<SubjectKind> parse_subject_kind(std::string_view name) {
  return enum_from_name<SubjectKind>(name, kSubjectKindNames);
}
std::optional<ReasonKind> parse_reason_kind(std::string_view name) {
  return enum_from_name<ReasonKind>(name, kReasonKindNames);
}

std::string direction_label(Direction d, int input) {
  std::string label(direction_name(d));
  // A forward check compares the output: no input index even if one was filled in.
  if (d != Direction::forward && d != Direction::forward_complete && input >= 0)
    label += " input " + std::to_string(input);
  return label;
}

std::string check_label(const CheckResult& r) {
  return r.part.empty() ? direction_label(r.direction, r.input) : r.part;
}

bool needs_action(const CheckResult& c) { return c.verdict == Verdict::skip && c.reason_kind != ReasonKind::covered; }

}  // namespace gp
