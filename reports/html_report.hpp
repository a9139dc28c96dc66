// parity.html: one self-contained page (inline CSS, SVG and a few lines of script; nothing
// fetched from a network, no external fonts) with the run metadata, the verdict counts, a heatmap
// of the worst margin per op x backend x dtype, margin histograms per backend, the problems
// with their repro lines, and a collapsible table per op.
#pragma once

#include <filesystem>
#include <string>

#include "results/result.hpp"

namespace gp {

std::string report_to_html(const RunReport& report);
void write_parity_html(const std::filesystem::path& path, const RunReport& report);

}  // namespace gp
