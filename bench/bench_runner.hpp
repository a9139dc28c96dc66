// `gradparity bench`'s measurement: every selected case's forward and backward call on every
// selected device, timed over repetitions (docs/bench.md). What the times mean (bytes,
// operations, GB/s, GFLOP/s) comes from the catalog (core/op_work.hpp), not from this folder.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "backends/registry.hpp"
#include "bench/bench_items.hpp"
#include "cases/case.hpp"
#include "results/bench.hpp"

namespace gp {

struct BenchOptions {
  std::uint64_t seed = 1;  // the inputs' stream, as in run: bench times what run checked
  double min_time = 0.01;  // seconds of calls each repetition takes at least
  int repetitions = 10;
  bool probes = true;  // each device's copy bandwidth and arithmetic rate per dtype (DeviceLimit)
  // When set and it becomes true (a SIGINT), no further round starts; the rows keep the
  // repetitions they have.
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const BenchRow&)> on_row;  // each row when its device is done (progress)
  // Before a case's calls in a round (0 = calibration): what a crash or a hang was in, for the
  // process that runs a device in a child (cli/bench_children.hpp).
  std::function<void(const std::string& case_id, int round)> on_entry;
  // After each round of a device: the round (0 = calibration), the rounds in all, the device.
  std::function<void(int round, int rounds, const std::string& device)> on_round;
};

// The rows in device order, then case order, forward before backward. Per device, a first round
// calibrates every call (calls_for), then each round times one repetition of every call: a row's
// repetitions are spread over the device's whole bench, so that they see the machine's slower
// and faster moments as a second bench of the same build would, and the rank test of `compare`
// judges a change against that noise. Cases stay resident between rounds within a budget of
// device memory; the others are uploaded again each round (not timed).
// Each device's probes (copy_probe_case, ArithmeticProbe) are timed in the same rounds, first in each.
// A device that cannot be opened gives skipped rows with its reason; a call that throws gives an
// error row (and the rest of the case's rows on that device), and the device's next case runs on
// a new queue.
struct BenchMeasurement {
  std::vector<BenchRow> rows;
  std::vector<DeviceLimit> limits;  // per device, each dtype of its timed rows
};
BenchMeasurement run_bench(const BenchItems& items, const std::vector<SelectedDevice>& devices,
                           const BenchOptions& opts);

// The copy probe for a dtype on a device: the catalog's reshape of one tensor of 256 MiB (less
// where the device's largest buffer, an eighth of its memory or `most_elements` is less),
// identity-shaped, its element count a power of two.
Case copy_probe_case(DType dtype, const DeviceInfo& device, std::int64_t most_elements = std::int64_t{1} << 40);

// The case's rows on a device before any call: forward, and backward where an input gets a
// gradient, with the catalog's bytes and operations.
std::vector<BenchRow> bench_rows_of(const Case& c, const std::string& device);
// A model's rows (forward; forward and backward), a training run's (one step), with the bytes and
// operations of the calls they make (graph_work, training_step_work).
std::vector<BenchRow> bench_rows_of(const CompositeSubject& s, const std::string& device);
std::vector<BenchRow> bench_rows_of(const CreationSize& size, const std::string& device);
// Every item's rows, in the order a device's bench gives them.
std::vector<BenchRow> bench_rows_of(const BenchItems& items, const std::string& device);

// Calls per repetition: as many as fill `min_time` of the host's clock in a first, untimed
// repetition (at least one, at most `max_calls`), so every repetition makes the same calls.
std::int64_t calls_for(double seconds_per_call, double min_time, std::int64_t max_calls = 1'000'000);

}  // namespace gp
