// Text names of the result enums (harness/result.hpp declares the writers; this adds the
// parsers readers need). The names are part of the parity.json schema: never rename one.
#pragma once

#include <optional>
#include <string_view>

#include "harness/result.hpp"

namespace gp {

inline constexpr Verdict kAllVerdicts[] = {Verdict::pass, Verdict::fail, Verdict::skip, Verdict::mistrusted,
                                           Verdict::error};
inline constexpr Direction kAllDirections[] = {
    Direction::forward,           Direction::backward,  Direction::numerical_reference,
    Direction::numerical_backend, Direction::surrogate, Direction::node};

std::optional<Verdict> parse_verdict(std::string_view name);      // "PASS" -> Verdict::pass
std::optional<Direction> parse_direction(std::string_view name);  // "backward" -> Direction::backward

}  // namespace gp
