// `gradparity bench` with a device's rounds in child processes of itself: a plugin's device
// always (code gradparity did not build may crash or hang: that case's rows become errors and
// the bench goes on), any device with --processes K > 1. K processes time the device's cases
// one after another, each a share of the repetitions: what a process holds for its whole life
// (its buffers' placement, its driver's threads) then varies between a row's repetitions as it
// does between two benches, and compare's rank test sees it (docs/bench.md).
#pragma once

#include <string>
#include <vector>

#include "bench/bench_runner.hpp"
#include "cli/commands.hpp"

namespace gp::cli {

// The device's rows and limits measured by `processes` children in turn (the repetitions split
// between them, the first ones taking one more), merged per row in process order.
BenchMeasurement bench_device_in_children(const BenchCommand& cmd, const SelectedDevice& device,
                                          const BenchItems& items, int processes);

// The child's side (`bench-child`): the cases of --cases on the one --backend, its measurement
// written to --out as bench.json, the case in progress to --trace before each of its calls.
int bench_child_command(const BenchCommand& cmd);

}  // namespace gp::cli
