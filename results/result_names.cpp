// Defines the name functions declared in results/result.hpp and their inverses.
#include "results/result_names.hpp"

#include <iterator>
#include <string>

namespace gp {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return "PASS";
    case Verdict::fail:
      return "FAIL";
    case Verdict::skip:
      return "SKIP";
    case Verdict::mistrusted:
      return "MISTRUSTED";
    case Verdict::error:
      return "ERROR";
  }
  return "?";
}

std::string_view direction_name(Direction d) {
  switch (d) {
    case Direction::forward:
      return "forward";
    case Direction::backward:
      return "backward";
    case Direction::numerical_reference:
      return "numerical_reference";
    case Direction::numerical_backend:
      return "numerical_backend";
    case Direction::surrogate:
      return "surrogate";
    case Direction::node:
      return "node";
  }
  return "?";
}

std::string direction_label(Direction d, int input) {
  std::string label(direction_name(d));
  // A forward check compares the output: no input index even if one was filled in.
  if (d != Direction::forward && input >= 0) label += " input " + std::to_string(input);
  return label;
}

std::string check_label(const CheckResult& r) {
  return r.part.empty() ? direction_label(r.direction, r.input) : r.part;
}

std::optional<Verdict> parse_verdict(std::string_view name) {
  for (Verdict v : kAllVerdicts)
    if (verdict_name(v) == name) return v;
  return std::nullopt;
}

std::optional<Direction> parse_direction(std::string_view name) {
  for (Direction d : kAllDirections)
    if (direction_name(d) == name) return d;
  return std::nullopt;
}

namespace {

// The schema spelling of each kind, in enum order (kAllSubjectKinds / kAllReasonKinds).
constexpr std::string_view kSubjectKindNames[] = {"primitive", "model", "training"};
constexpr std::string_view kReasonKindNames[] = {"none",          "covered",     "unsupported",      "unavailable",
                                                 "device_failed", "device_lost", "reference_failed", "device_error"};
static_assert(std::size(kSubjectKindNames) == std::size(kAllSubjectKinds));
static_assert(std::size(kReasonKindNames) == std::size(kAllReasonKinds));

template <typename Enum, std::size_t N>
std::optional<Enum> parse_by_name(std::string_view name, const std::string_view (&names)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace

std::string_view subject_kind_name(SubjectKind k) { return kSubjectKindNames[static_cast<std::size_t>(k)]; }
std::string_view reason_kind_name(ReasonKind k) { return kReasonKindNames[static_cast<std::size_t>(k)]; }

std::optional<SubjectKind> parse_subject_kind(std::string_view name) {
  return parse_by_name<SubjectKind>(name, kSubjectKindNames);
}
std::optional<ReasonKind> parse_reason_kind(std::string_view name) {
  return parse_by_name<ReasonKind>(name, kReasonKindNames);
}

bool needs_action(const CheckResult& c) { return c.verdict == Verdict::skip && c.reason_kind != ReasonKind::covered; }

}  // namespace gp
