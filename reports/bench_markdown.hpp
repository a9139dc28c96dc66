// bench.md: what `gradparity bench` measured, for people. One table per device: each case's
// forward and backward call, the median time per call and the spread of the repetitions, the
// timer, and GB/s and GFLOP/s from the catalog's bytes and operations (core/op_work.hpp).
#pragma once

#include <string>

#include "results/bench.hpp"

namespace gp {

std::string bench_to_markdown(const BenchReport& report);

// A preset's table (bench --preset): a line per preset row, a column per device, each cell the
// medians of the row's calls ("3.8 µs / 7.8 µs"); "" without a preset.
std::string preset_table(const BenchReport& report);

// "12.3 µs", "4.56 ms", "1.23 s": three significant digits in the unit that suits.
std::string duration_text(double seconds);

}  // namespace gp
