// Named selections of bench (`--preset`), each with a table that shows its rows per device side
// by side (reports/bench_markdown.hpp). `library-report` is the set of sizes ML libraries'
// performance reports time (docs/bench.md): tensor creation, elementwise ops, matmuls, a sum and
// an axis mean, a linear layer, a training step, an MLP and a GRU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_runner.hpp"
#include "results/bench.hpp"

namespace gp {

struct BenchPreset {
  std::string_view name;
  std::vector<PresetRow> rows;  // in the table's order; a creation's id is CreationSize::id()
  std::vector<CreationSize> creations;
};

const std::vector<BenchPreset>& bench_presets();
std::vector<std::string> bench_preset_names();
// nullptr when there is none of that name.
const BenchPreset* find_bench_preset(std::string_view name);
// The cases, models, training runs and creations of its rows. Throws gp::Error naming a row
// whose id is not in the catalog.
BenchItems preset_items(const BenchPreset& preset);

}  // namespace gp
