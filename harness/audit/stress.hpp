// Thread-safety stress: many threads on one device, every result bit-identical to a serial run.
//
// One mode on one device runs like this (run_stress_mode):
//   1. baseline: one backend instance, one queue, every subject once, serially (a primitive case's
//      forward and backward, a model's graph forward and backward, a training run's steps);
//   2. N threads wait on a std::barrier, then run M iterations each, cycling through the subjects,
//      in the mode's way of sharing the device (StressMode);
//   3. every output and gradient is compared byte for byte with the baseline. A difference is a
//      mismatch; NaN/Inf where the baseline is finite is counted on its own as well; device
//      errors, canary violations and validation-layer messages (Vulkan) are collected.
// Crashes and hangs cannot be caught in-process: cli/stress_child.cpp runs each mode in a child
// process with a time limit and turns a signal or a timeout into StressResult::crash.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/registry.hpp"
#include "harness/check/subject.hpp"
#include "results/result.hpp"

namespace gp {

enum class StressMode : std::uint8_t {
  shared,      // one Backend instance, one Queue per thread (the interface's contract)
  per_thread,  // each thread creates its own instance of the same device (the seed incident)
  churn,       // even threads compute on a shared instance; odd threads create and destroy
               // queues, buffers and whole instances (with their kernels/pipelines) meanwhile
};
std::string_view stress_mode_name(StressMode m);  // "shared", "per-thread", "churn"
std::optional<StressMode> parse_stress_mode(std::string_view name);
inline constexpr StressMode kAllStressModes[] = {StressMode::shared, StressMode::per_thread, StressMode::churn};

// max(4, 2 x hardware threads).
int default_stress_threads();

struct StressOptions {
  int threads = default_stress_threads();
  std::int64_t iterations = 50;  // per thread
  double duration_s = 0;         // > 0: each thread loops until this much time has passed instead
  std::uint64_t seed = 1;        // input seed (gp::make_inputs)
  // Positive control: an InjectableFault of the device's provider (backends/registry.hpp) that
  // breaks its thread-safety on purpose, so that a clean run means something; "" for none.
  std::string inject;
  bool progress = false;  // progress lines on stderr
};

// Runs one mode on one device in this process. Device errors become StressResult::errors; a
// device that cannot be opened gives a result with errors = 1 and the reason in notes. The
// fault, if any, is switched on only while the threads run (the baseline stays clean).
StressResult run_stress_mode(const SelectedDevice& device, const std::vector<const Subject*>& subjects, StressMode mode,
                             const StressOptions& opts);

}  // namespace gp
