// The parity run: selected cases x selected devices, with progress output, into a RunReport.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "cases/composite.hpp"
#include "cases/registry.hpp"
#include "harness/checker.hpp"
#include "harness/result.hpp"

namespace gp {

struct Selection {
  std::vector<std::string> ops;          // --op: op names
  std::vector<std::string> dtypes;       // --dtype: dtype names
  std::string filter;                    // --filter: ECMAScript regex searched in the case id
  int shard_index = 1, shard_count = 1;  // --shard I/N, 1-based
};

// Parses "I/N" (1 <= I <= N); throws UsageError naming the bad value.
void parse_shard(const std::string& text, Selection& sel);
// The cases a selection picks, in registry order. Throws UsageError for unknown op or dtype
// names (listing the valid ones) and for a malformed regex.
std::vector<const Case*> select_cases(const Selection& sel);
// The composite models a selection picks (--op names a model: mlp, gru, ...), sharded alike.
std::vector<const Composite*> select_composites(const Selection& sel);

struct RunOptions {
  std::uint64_t seed = 1;
  NumericalOptions numerical;
  bool reference_checks = true;  // numerical check (a), once per case
  bool oracle_check = true;      // the sampled oracle check of the reference, once per case (metadata)
  bool progress = false;         // progress lines on stderr
  int jobs = 1;                  // worker threads over cases (each with its own queues)
  // When set and it becomes true (a SIGINT), workers start no further case: the cases in
  // progress finish and the report holds every case finished so far.
  const std::atomic<bool>* stop = nullptr;
  // Called by the worker before and after each case or composite, e.g. to leave a trace that a
  // parent process reads after a crash (cli/isolated_run.cpp). With jobs > 1 from several threads.
  std::function<void(const std::string& id)> on_item_start;
  std::function<void(const std::string& id, const std::vector<CheckResult>& checks)> on_item_done;
};

// Runs every selected case on every selected device. A device that cannot be used gives one
// SKIP per case with its reason; a device error is an ERROR for that case; a lost device
// makes the rest of its cases SKIP with the loss as reason.
RunReport run_parity(const std::vector<const Case*>& cases, const std::vector<SelectedDevice>& devices,
                     const RunOptions& opts, const std::vector<const Composite*>& composites = {});

DeviceSummary summarize_device(const SelectedDevice& d);

}  // namespace gp
