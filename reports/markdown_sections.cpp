// parity.md detail sections: problems with their repro lines, loosened tolerances, skip reasons
// and the per-op result tables.
#include "reports/markdown_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "reports/summary.hpp"
#include "results/result_names.hpp"

namespace gp::md {

namespace {

// Checks grouped under one text (a reason class), groups in order of first appearance.
struct Group {
  std::string text;
  std::vector<const CheckResult*> checks;
};

// `fold`: skips that differ only in their figures share a group (skip_group).
template <typename Pred>
std::vector<Group> group_by_reason(const std::vector<CheckResult>& checks, Pred wanted, bool fold) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const CheckResult& c : checks) {
    if (!wanted(c)) continue;
    std::string text = fold ? skip_group(c) : c.reason;
    auto [it, added] = index.try_emplace(text, groups.size());
    if (added) groups.push_back(Group{std::move(text), {}});
    groups[it->second].checks.push_back(&c);
  }
  return groups;
}

// "`a`, `b`, `c` and 4 more": distinct values, the first few spelled out.
template <typename Get>
std::string few(const std::vector<const CheckResult*>& checks, Get get, std::size_t shown = 3) {
  std::vector<std::string> distinct;
  for (const CheckResult* c : checks) {
    std::string v = get(*c);
    if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(std::move(v));
  }
  std::string out;
  for (std::size_t i = 0; i < distinct.size() && i < shown; ++i) out += (i ? ", " : "") + code(distinct[i]);
  if (distinct.size() > shown) out += fmt::format(" and {} more", distinct.size() - shown);
  return out;
}

void append_problem(std::string& out, const CheckResult& c) {
  auto o = std::back_inserter(out);
  const Metrics& m = c.metrics;
  fmt::format_to(o, "### {} {} · {} · {}\n\n", verdict_badge(c.verdict), code(c.case_id), code(c.backend),
                 check_label(c));
  if (c.reason.find('\n') == std::string::npos) {
    fmt::format_to(o, "- Reason: {}\n", c.reason.empty() ? "(none given)" : c.reason);
  } else {
    fmt::format_to(o, "- Reason:\n\n```text\n{}\n```\n\n", c.reason);
  }
  if (!c.tolerance.empty()) fmt::format_to(o, "- Tolerance: {}\n", c.tolerance);
  fmt::format_to(o, "- Dtype {}, seed {}, {:.3g} ms\n", dtype_name(c.dtype), c.seed, c.time_ms);
  if (has_metrics(c)) {
    fmt::format_to(o, "- Max abs {}, max rel {}, max ULP {}, NMSE {}, margin {} (bound {}), {} non-finite of {}\n",
                   g3(m.max_abs), g3(m.max_rel), g3(m.max_ulp), g3(m.nmse), g3(m.margin), g3(m.bound), m.nonfinite,
                   m.elements);
  }
  if (!c.formulation.empty() && c.subject == SubjectKind::primitive)
    fmt::format_to(o, "- Formulation: {}\n", c.formulation);
  if (m.insignificant > 0)
    fmt::format_to(o, "- {} of {} elements without a significant digit (their bound reaches their value)\n",
                   m.insignificant, m.elements);
  if (m.tensor_elements > m.elements)
    fmt::format_to(o, "- Compared exactly: a sample of {} of {} elements ({:.3g}%; docs/scale.md)\n", m.elements,
                   m.tensor_elements, 100.0 * static_cast<double>(m.elements) / static_cast<double>(m.tensor_elements));
  if (m.worst.index >= 0) {
    std::string inputs;
    for (std::size_t i = 0; i < m.worst.inputs.size(); ++i) inputs += (i ? ", " : "") + exact(m.worst.inputs[i]);
    fmt::format_to(o, "- Worst element: index {}, inputs ({}), expected {}, got {}, bound {}\n", m.worst.index, inputs,
                   exact(m.worst.expected), exact(m.worst.got), exact(m.worst.bound));
  }
  if (c.repro.empty()) {
    fmt::format_to(o, "- Repro: (none recorded)\n\n");
  } else {
    fmt::format_to(o, "\nRepro:\n\n```sh\n{}\n```\n\n", c.repro);
  }
}

}  // namespace

void append_problems(std::string& out, const RunReport& report) {
  std::vector<const CheckResult*> problems;
  for (const CheckResult& c : report.checks)
    if (is_problem(c.verdict)) problems.push_back(&c);
  fmt::format_to(std::back_inserter(out), "## Failures, errors and mistrusted checks ({})\n\n", problems.size());
  if (problems.empty()) out += "None.\n\n";
  for (const CheckResult* c : problems) append_problem(out, *c);
}

void append_loosened_tolerances(std::string& out, const RunReport& report) {
  // A PASS that carries a reason passed under a tolerance someone widened by hand or a declared
  // surrogate: the reason says why, and it belongs in front of reviewers, figures and all.
  auto groups = group_by_reason(
      report.checks, [](const CheckResult& c) { return c.verdict == Verdict::pass && !c.reason.empty(); }, false);
  auto o = std::back_inserter(out);
  fmt::format_to(o, "## Passing checks with a note: loosened tolerances, declared surrogates ({})\n\n", groups.size());
  if (groups.empty()) {
    out += "None.\n\n";
    return;
  }
  out += "| Reason | Tolerance | Checks | Backends | Cases |\n|---|---|---:|---|---|\n";
  for (const Group& g : groups) {
    // The tolerance texts differ by device profile; the first stands for them.
    std::vector<std::string> tolerances;
    for (const CheckResult* c : g.checks)
      if (std::find(tolerances.begin(), tolerances.end(), c->tolerance) == tolerances.end())
        tolerances.push_back(c->tolerance);
    std::string tolerance = tolerances.front().empty() ? "—" : cell(shorten(tolerances.front(), 120));
    if (tolerances.size() > 1) tolerance += fmt::format(" and {} more", tolerances.size() - 1);
    fmt::format_to(o, "| {} | {} | {} | {} | {} |\n", cell(g.text), tolerance, g.checks.size(),
                   few(
                       g.checks, [](const CheckResult& c) { return c.backend; }, 4),
                   few(g.checks, [](const CheckResult& c) { return c.case_id; }));
  }
  out += "\n";
}

void append_skip_reasons(std::string& out, const RunReport& report) {
  auto groups = group_by_reason(
      report.checks, [](const CheckResult& c) { return c.verdict == Verdict::skip; }, true);
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 "## Skip reasons ({})\n\nFigures that differ from check to check are shown as …; each check's own "
                 "reason is in parity.json and in `repro`.\n\n",
                 groups.size());
  if (groups.empty()) {
    out += "None.\n\n";
    return;
  }
  out += "| Reason | Checks | Backends | Cases |\n|---|---:|---|---|\n";
  for (const Group& g : groups)
    fmt::format_to(o, "| {} | {} | {} | {} |\n", g.text.empty() ? "(no reason given)" : cell(g.text), g.checks.size(),
                   few(
                       g.checks, [](const CheckResult& c) { return c.backend; }, 4),
                   few(g.checks, [](const CheckResult& c) { return c.case_id; }));
  out += "\n";
}

void append_per_op_tables(std::string& out, const RunReport& report) {
  auto o = std::back_inserter(out);
  out += "## Results per op\n\n";
  for (const std::string& op : ops_in_catalog_order(report.checks)) {
    fmt::format_to(o, "### {}\n\n", cell(op));
    out +=
        "| Case | Backend | Dtype | Direction | Max Abs Diff | Max Rel Diff | Max ULP | Margin | Status |\n"
        "|---|---|---|---|---:|---:|---:|---:|---|\n";
    for (const CheckResult& c : report.checks) {
      if (op_of(c) != op) continue;
      const Metrics& m = c.metrics;
      const bool shown = has_metrics(c);
      auto metric = [&](double x) { return shown ? g3(x) : std::string("—"); };
      std::string status = verdict_badge(c.verdict);
      if (c.verdict == Verdict::skip && !c.reason.empty()) status += " (" + cell(shorten(c.reason, 40)) + ")";
      std::string label = check_label(c);
      if (!c.formulation.empty() && c.subject == SubjectKind::primitive)  // a declared formulation
        label += m.insignificant > 0 ? fmt::format(" (from the forward's value; {} of {} without a significant digit)",
                                                   m.insignificant, m.elements)
                                     : std::string(" (from the forward's value)");
      if (m.tensor_elements > m.elements)  // the large tier: the fraction compared exactly
        label += fmt::format(", sample {:.3g}%",
                             100.0 * static_cast<double>(m.elements) / static_cast<double>(m.tensor_elements));
      fmt::format_to(o, "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", code(c.case_id), code(c.backend),
                     dtype_name(c.dtype), label, metric(m.max_abs), metric(m.max_rel), metric(m.max_ulp),
                     metric(m.margin), status);
      // Where other ops list their backward checks, a forward-only op says why it has none.
      if (c.direction == Direction::forward && forward_only(op))
        fmt::format_to(o, "| {} | {} | {} | {} | — | — | — | — | {} |\n", code(c.case_id), code(c.backend),
                       dtype_name(c.dtype), direction_name(Direction::backward), kForwardOnly);
    }
    out += "\n";
  }
}

}  // namespace gp::md
