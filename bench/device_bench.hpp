// One opened device's bench (bench_runner.hpp says what is measured and how): its cases and
// probes as entries, timed in rounds on one queue, a case's buffers resident between rounds
// within a budget.
#pragma once

#include <string>
#include <vector>

#include "bench/bench_runner.hpp"

namespace gp {

BenchMeasurement bench_device(const SelectedDevice& d, Backend& backend, const BenchItems& items,
                              const BenchOptions& opts);

// Rows [from, end) get `outcome` and `reason`.
void mark_rows(std::vector<BenchRow>& rows, std::size_t from, BenchOutcome outcome, const std::string& reason);

}  // namespace gp
