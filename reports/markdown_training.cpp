// parity.md's Training section: one row per training run x backend (reports/training.hpp).
#include <fmt/format.h>

#include <iterator>

#include "reports/markdown_sections.hpp"
#include "reports/training.hpp"

namespace gp::md {

namespace {

// The loss at step k (from 1): the device's, then its distance from the reference and the band.
std::string step_cell(const TrainingSteps& s, std::size_t k) {
  if (k == 0 || k > s.loss.size()) return "—";
  const std::size_t i = k - 1;
  return fmt::format("{:.6g} (Δ {}, ± {})", s.loss[i], g3(s.loss[i] - s.reference[i]), g3(s.bound[i]));
}

}  // namespace

void append_training(std::string& out, const RunReport& report) {
  const std::vector<TrainingRow> rows = training_rows(report.checks);
  if (rows.empty()) return;
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 "## Training\n\nTraining runs on each backend against the same steps in long double "
                 "(docs/training.md). The loss before steps 1, K/2 and K: the device's, its distance Δ from the "
                 "reference and the band ± its bound through the steps; the largest loss error ÷ bound over the "
                 "steps; the step map's amplification of a perturbation (the largest per step, the product); the "
                 "first step at which any of the run's checks (loss, parameters, optimizer states) left its band.\n\n");
  fmt::format_to(o,
                 "| Run | Backend | dtype | Verdict | Loss, step 1 | step K/2 | step K | Largest error ÷ bound (step) "
                 "| Amplification max / product | First step out of band |\n"
                 "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const TrainingRow& r : rows) {
    const std::size_t steps = r.curve.loss.size();
    const bool ran = steps > 0;
    fmt::format_to(
        o, "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", code(r.case_id), code(r.backend),
        dtype_name(r.dtype), verdict_badge(r.verdict), step_cell(r.curve, 1), step_cell(r.curve, (steps + 1) / 2),
        step_cell(r.curve, steps), ran ? fmt::format("{} ({})", g3(r.worst_ratio), r.worst_step) : "—",
        r.curve.amplification.empty() ? "—"
                                      : fmt::format("{} / {}", g3(r.amplification_max), g3(r.amplification_product)),
        r.first_out > 0 ? fmt::format("step {}", r.first_out)
        : ran           ? "none"
                        : "—");
  }
  out += "\n";
}

}  // namespace gp::md
