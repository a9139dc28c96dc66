// Host memory for the CPU backend, fenced by canary regions. Every buffer is allocated as
//   [64-byte guard][payload: bytes()][64-byte guard]
// with the guards filled with a position-dependent pattern. A kernel that writes outside its
// tensor (an off-by-one row, a wrong stride) changes a guard byte; the queue checks the guards
// of every buffer it touched after each forward/backward and reports what it found.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.hpp"
#include "core/host_bytes.hpp"

namespace gp::cpu {

class CpuBuffer final : public DeviceBuffer {
 public:
  static constexpr std::size_t kGuardBytes = 64;

  CpuBuffer(DType dtype, Shape shape);

  // The payload. Kernels and the queue read and write through these pointers; the guards lie
  // just outside [data(), data() + bytes()).
  std::byte* data() { return storage_.data() + kGuardBytes; }
  const std::byte* data() const { return storage_.data() + kGuardBytes; }

  // Checks both guards. Returns a description of every damaged region ("N bytes overwritten
  // after the end, at +a..+b"), or nothing when both are intact. Damaged guards are re-armed,
  // so one bad write is reported once.
  std::optional<std::string> check_guards();

 private:
  HostBytes storage_;  // zeroed; a large one faulted in on every core
};

}  // namespace gp::cpu
