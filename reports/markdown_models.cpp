// parity.md's Models section: one row per composite model x backend (reports/models.hpp).
#include <fmt/format.h>

#include <iterator>
#include <map>

#include "reports/markdown_sections.hpp"
#include "reports/models.hpp"

namespace gp::md {

namespace {

std::string verdict_cell(Verdict v, bool any) { return any ? verdict_badge(v) : "—"; }

}  // namespace

void append_models(std::string& out, const RunReport& report) {
  const std::vector<ModelRow> rows = model_rows(report.checks);
  if (rows.empty()) return;
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 "## Models\n\nComposite models run through each backend's own kernels, device-resident. End to end: "
                 "output, loss and every leaf gradient within a bound propagated through the graph; node by node: each "
                 "node alone, fed the reference's inputs; numerical: finite differences of the whole loss "
                 "(docs/models.md).\n\n");
  fmt::format_to(o,
                 "| Model | Backend | End to end | Node by node | Numerical | Worst end-to-end check (margin, bound) "
                 "| Worst node (margin) |\n|---|---|---|---|---|---|---|\n");
  std::map<std::string, std::string> formulations;
  for (const ModelRow& r : rows) {
    if (!r.formulation.empty()) formulations.emplace(r.model, r.formulation);
    const bool reference = r.backend == "reference";
    fmt::format_to(o, "| {} | {} | {} | {} | {} | {} | {} |\n", code(r.case_id), code(r.backend),
                   verdict_cell(r.end_to_end, !reference), verdict_cell(r.node, !reference), verdict_badge(r.numerical),
                   r.worst_part.empty() ? "—" : cell(r.worst_part) + " (" + g3(r.margin) + ", " + g3(r.bound) + ")",
                   r.worst_node.empty() ? "—" : cell(r.worst_node) + " (" + g3(r.node_margin) + ")");
  }
  out += "\n";
  for (const auto& [model, text] : formulations) fmt::format_to(o, "- `{}`: {}\n", model, cell(text));
  std::size_t problems = 0;
  for (const ModelRow& r : rows)
    if (!r.problem.empty()) {
      if (problems++ == 0) out += "\nProblems (each with its repro line in the table of failures above):\n\n";
      fmt::format_to(o, "- {} {}: {}\n", code(r.case_id), code(r.backend), cell(shorten(r.problem, 300)));
    }
  out += "\n";
}

}  // namespace gp::md
