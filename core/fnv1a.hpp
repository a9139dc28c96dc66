// FNV-1a, 64 bits: a hash that gives the same value for the same bytes on every machine and
// standard library (std::hash does not), for the ids and streams derived from text and values
// (rng streams, the catalog's version, a file case's id, the oracle's picks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gp {

class Fnv1a {
 public:
  static constexpr std::uint64_t kOffsetBasis = 0xCBF29CE484222325ULL;
  // The start the catalog's version, the oracle's picks and file cases' ids have always used: the
  // offset basis with its last decimal digit lost (1469598103934665603 for 14695981039346656037).
  // As good a start; kept so that those texts and picks stay what they were.
  static constexpr std::uint64_t kShortStart = 1469598103934665603ULL;
  explicit constexpr Fnv1a(std::uint64_t start = kOffsetBasis) : h_(start) {}
  constexpr Fnv1a& add(std::string_view text) {
    for (unsigned char c : text) h_ = (h_ ^ c) * 0x100000001B3ULL;
    return *this;
  }
  Fnv1a& add_bytes(const void* data, std::size_t n) { return add(std::string_view(static_cast<const char*>(data), n)); }
  constexpr std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_;
};

}  // namespace gp
