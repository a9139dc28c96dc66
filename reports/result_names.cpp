// Defines the name functions declared in harness/result.hpp (the harness library does not) and
// their inverses.
#include "reports/result_names.hpp"

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

}  // namespace gp
