// Per-enum facts kept as one table in enum order (a name, a symbol, a size per value) instead of a
// switch per fact: a new enum value is one row, and a missing row fails to compile where the
// table is checked against the enum's count.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace gp {

// table[e] for an enum whose values run 0, 1, ..., N - 1.
template <typename Enum, typename T, std::size_t N>
constexpr const T& enum_row(const T (&table)[N], Enum e) {
  return table[static_cast<std::size_t>(e)];
}

// The value whose row's `name` is `name`.
template <typename Enum, typename Row, std::size_t N, typename Name>
std::optional<Enum> enum_from_name(std::string_view name, const Row (&table)[N], Name Row::*field) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i].*field == name) return static_cast<Enum>(i);
  return std::nullopt;
}

// The same for a table of names alone.
template <typename Enum, std::size_t N>
std::optional<Enum> enum_from_name(std::string_view name, const std::string_view (&names)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace gp
