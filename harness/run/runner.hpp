// The parity run: selected subjects x selected devices, with progress output, into a RunReport.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "harness/run/subjects.hpp"
#include "results/result.hpp"

namespace gp {

struct RunOptions {
  RunContext context;            // seed and numerical options
  bool reference_checks = true;  // the reference's own checks, once per subject
  bool oracle_check = true;      // the sampled oracle check of the reference, once per primitive case (metadata)
  bool progress = false;         // progress lines on stderr
  int jobs = 1;                  // worker threads over the work items (each with its own queues)
  // When set and it becomes true (a SIGINT), workers start no further subject: those in progress
  // finish and the report holds every subject finished so far.
  const std::atomic<bool>* stop = nullptr;
  // Called by the worker before each item of a subject (harness/run/work_items.hpp: a model's
  // devices are items of their own) and after the subject's last item, e.g. to leave a trace
  // that a parent process reads after a crash (cli/isolated_run.cpp, one device: one item per
  // subject). With jobs > 1 from several threads.
  std::function<void(const std::string& id)> on_item_start;
  std::function<void(const std::string& id, const std::vector<CheckResult>& checks)> on_item_done;
};

// Runs every subject on every device. A device that cannot be used gives one SKIP per subject
// with its typed reason; a device error is an ERROR for that subject; a lost device makes the
// rest of its subjects SKIP with the loss as reason.
RunReport run_parity(const std::vector<const Subject*>& subjects, const std::vector<SelectedDevice>& devices,
                     const RunOptions& opts);

DeviceSummary summarize_device(const SelectedDevice& d);

}  // namespace gp
