// parity.md: the human-readable report. Sections, in order: run metadata and devices, summary
// counts, the op x backend matrix, every failure / error / mistrusted check with its worst
// element and repro line, hand-loosened tolerances, skip reasons grouped, and last the long
// per-op tables (so that problems are never buried under thousands of passing rows).
#pragma once

#include <filesystem>
#include <string>

#include "harness/result.hpp"

namespace gp {

std::string report_to_markdown(const RunReport& report);
void write_parity_md(const std::filesystem::path& path, const RunReport& report);

}  // namespace gp
