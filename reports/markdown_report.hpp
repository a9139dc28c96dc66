// parity.md: the human-readable summary, small enough for a CI job summary page (GitHub takes at
// most 1 MiB) and readable from its first screen. Sections, in order: run metadata and devices,
// an interrupted banner, summary counts, the compact op x backend matrix (symbol and worst
// margin per cell, skip reasons once in a legend), every failure / error / mistrusted check with
// its repro line (the first few hundred), the thinnest margins, hand-loosened tolerances.
// parity-details.md holds what grows with the run: each problem's worst element, the skip
// reasons grouped, and the per-op tables of every check.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "results/result.hpp"

namespace gp {

inline constexpr std::string_view kDetailsFileName = "parity-details.md";

std::string report_to_markdown(const RunReport& report);
std::string report_to_details_markdown(const RunReport& report);
// Writes parity.md at `path` and parity-details.md beside it.
void write_parity_md(const std::filesystem::path& path, const RunReport& report);

}  // namespace gp
