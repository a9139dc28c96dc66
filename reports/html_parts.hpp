// Internal to reports/: the inline SVG pictures of parity.html (html_svg.cpp).
#pragma once

#include <string>

#include "results/result.hpp"

namespace gp::html {

// <svg id="heatmap">: rows ops, columns backend x dtype, each cell coloured by its worst margin
// (red with a cross for FAIL / ERROR), a tooltip with the counts, a link to the op's table.
std::string heatmap_svg(const RunReport& report);
// One small <svg class="hist"> per backend: how many checks have margins in each half-decade.
std::string margin_histograms_svg(const RunReport& report);
// The same for each comparison's sensitivity_ulp, by powers of two.
std::string sensitivity_histograms_svg(const RunReport& report);

// Per training run, one <svg class="train"> per backend: the loss per step against the reference,
// and the device's distance from it inside the band ± the bound (html_training.cpp).
std::string training_svgs(const RunReport& report);

}  // namespace gp::html
