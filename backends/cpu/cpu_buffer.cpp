#include "backends/cpu/cpu_buffer.hpp"

#include <cstdint>

namespace gp::cpu {

namespace {

// The guard byte at a position of a guard. It varies with the position (and differs between
// the two guards) so that a kernel copying a guard-like pattern, or shifting data by a few
// bytes, still changes it.
std::byte guard_byte(std::size_t position, bool after) {
  return static_cast<std::byte>((0xA5u ^ (position * 29u) ^ (after ? 0x5Au : 0u)) & 0xFFu);
}

void arm(std::byte* guard, bool after) {
  for (std::size_t i = 0; i < CpuBuffer::kGuardBytes; ++i) guard[i] = guard_byte(i, after);
}

// Describes (and re-arms) the damaged bytes of one guard; empty when intact. Offsets are
// relative to the payload: "-64..-1" before it, "+0..+63" past its end.
std::string inspect(std::byte* guard, bool after) {
  std::size_t count = 0, first = 0, last = 0;
  for (std::size_t i = 0; i < CpuBuffer::kGuardBytes; ++i) {
    if (guard[i] == guard_byte(i, after)) continue;
    if (count++ == 0) first = i;
    last = i;
    guard[i] = guard_byte(i, after);
  }
  if (count == 0) return {};
  auto offset = [&](std::size_t i) {
    return after ? "+" + std::to_string(i)
                 : std::to_string(static_cast<std::int64_t>(i) - static_cast<std::int64_t>(CpuBuffer::kGuardBytes));
  };
  return std::to_string(count) + " byte(s) overwritten " + (after ? "after the end" : "before the start") +
         ", at offsets " + offset(first) + ".." + offset(last);
}

}  // namespace

CpuBuffer::CpuBuffer(DType dtype, Shape shape)
    : DeviceBuffer(dtype, std::move(shape)), storage_(bytes() + 2 * kGuardBytes) {
  arm(storage_.data(), false);
  arm(data() + bytes(), true);
}

std::optional<std::string> CpuBuffer::check_guards() {
  std::string before = inspect(storage_.data(), false);
  std::string after = inspect(data() + bytes(), true);
  if (before.empty() && after.empty()) return std::nullopt;
  if (before.empty()) return after;
  if (after.empty()) return before;
  return before + "; " + after;
}

}  // namespace gp::cpu
