// What `gradparity bench` measures (bench/, docs/bench.md) and its reports read: per case, device
// and direction, the time of one call over repetitions, with the bytes and operations the catalog
// gives for the call (core/op_work.hpp). Schema of bench.json: reports/SCHEMA.md, "bench.json".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/result.hpp"

namespace gp {

enum class BenchOutcome : std::uint8_t {
  timed,    // every repetition ran
  skipped,  // the device does not take the call, or it does not fit (reason)
  error,    // the device failed the call, crashed or hung (reason)
};

// What a row times. A primitive row is one call of a case, forward or backward; a model's forward
// row its graph's forward, its backward row the forward and the backward together; a training
// run's one row (direction backward) one optimizer step; a creation row a device tensor allocated
// and filled from host data (bench/README.md).
enum class BenchSubject : std::uint8_t { primitive, model, training, creation };

// What a parity run found for the same call (`bench --parity`): its checks' verdict, the largest
// margin and the smallest sensitivity (a backward's over every gradient).
struct RowAccuracy {
  Verdict verdict = Verdict::pass;
  double margin = 0;
  double sensitivity_ulp = 0;
  int checks = 0;
};

// One row: a case's forward or backward call on one device.
struct BenchRow {
  std::string case_id;
  std::string op;
  std::string dtype;
  std::string device;  // device id, as in parity.json: "cpu", "opencl:0", "plugin:PATH:0"
  Direction direction = Direction::forward;
  BenchSubject subject = BenchSubject::primitive;
  BenchOutcome outcome = BenchOutcome::timed;
  std::string reason;  // why skipped or errored
  // Seconds per call, one value per repetition: each the mean over that repetition's calls.
  std::vector<double> repetition_seconds;
  std::int64_t calls_per_repetition = 0;
  bool device_timer = false;  // the device's own timers, else the host's clock around each call
  std::int64_t bytes = 0, flops = 0;
  std::optional<RowAccuracy> accuracy;

  double median_seconds() const;
  double min_seconds() const;
  double max_seconds() const;
  // The call's speed at the median time.
  CallSpeed speed() const { return {median_seconds(), device_timer, bytes, flops}; }
};

// A device's own limits for one dtype, measured by bench like rows: the bandwidth of a copy,
// the catalog's reshape of one long tensor (every backend implements it as a copy kernel that
// reads n elements and writes n), and the rate of the backend's own multiply-add chains
// (Queue::arithmetic_probe). Rows of bandwidth-bound ops are read as a fraction of the copy, the
// contractions as a fraction of what the roofline of both allows at their operations per byte.
struct DeviceLimit {
  std::string device;
  std::string dtype;
  BenchRow copy;        // the copy probe's row: its case id names the size
  BenchRow arithmetic;  // the arithmetic probe's row; skipped where the backend has none

  double copy_gb_per_s() const { return copy.outcome == BenchOutcome::timed ? copy.speed().gb_per_s() : 0; }
  double arithmetic_gflop_per_s() const {
    return arithmetic.outcome == BenchOutcome::timed ? arithmetic.speed().gflop_per_s() : 0;
  }
};

// A row of a preset's table (bench --preset): what it shows, and the id of the case, model,
// training run or creation whose rows it shows per device.
struct PresetRow {
  std::string label;
  std::string id;
};

struct BenchReport {
  RunMetadata meta;     // as a parity run's: build, devices, seed (of the inputs), command line
  double min_time = 0;  // seconds of calls each repetition took at least
  int repetitions = 0;
  std::string parity_source;  // the parity.json the rows' accuracy came from, "" for none
  std::string preset;         // --preset's name, "" for none
  std::vector<PresetRow> preset_rows;
  std::vector<DeviceLimit> limits;
  std::vector<BenchRow> rows;

  // The copy bandwidth of the row's device and dtype; 0 where none was measured.
  double copy_gb_per_s(const BenchRow& row) const;
  // The row's GB/s over it, for a row of a bandwidth-bound op (no operations counted); 0 otherwise
  // and for rows that are not one call (a model's graph, a training step, a creation's transfer
  // from the host: no one limit of the device bounds them).
  double copy_fraction(const BenchRow& row) const;
  // For a contraction's call: its GFLOP/s over what the roofline allows at its operations per
  // byte, the smaller of the arithmetic rate and the copy bandwidth times operations per byte; 0
  // where a limit is missing, the row counts no operations or is not one call.
  double roofline_fraction(const BenchRow& row) const;
  const DeviceLimit* limit_of(const BenchRow& row) const;
};

std::string_view bench_outcome_name(BenchOutcome o);  // "timed", "skipped", "error"
std::string_view bench_subject_name(BenchSubject s);  // "primitive", "model", "training", "creation"
// What the row's time is of, in a report's words: "forward", "backward", "forward+backward"
// (a model's gradient), "step" (a training run's), "create".
std::string_view bench_call_name(const BenchRow& row);

}  // namespace gp
