// parity.md summary sections: the compact op x backend matrix with its skip legend, the problem
// table, the thinnest margins and the margin distribution. Each is bounded in size whatever the
// run (a CI summary page takes at most 1 MiB); the unbounded lists live in parity-details.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <optional>

#include "reports/markdown_sections.hpp"
#include "reports/summary.hpp"
#include "results/result_names.hpp"

namespace gp::md {

namespace {

// Skip groups (skip_group: the kind, then the words with their figures folded), ranked by how many checks they skip;
// the first 26 get a letter for the legend, the rest share "*" and are listed in the details file.
std::map<std::string, std::string> skip_letters(const std::vector<CheckResult>& checks,
                                                std::vector<std::pair<std::string, int>>& ranked) {
  std::map<std::string, int> count;
  for (const CheckResult& c : checks)
    if (c.verdict == Verdict::skip) ++count[skip_group(c)];
  ranked.assign(count.begin(), count.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::map<std::string, std::string> letter;
  for (std::size_t i = 0; i < ranked.size(); ++i)
    letter[ranked[i].first] = i < 26 ? std::string(1, static_cast<char>('a' + i)) : "*";
  return letter;
}

// The worst verdict of a cell decides its symbol: an error or failure anywhere shows.
std::string_view cell_symbol(const VerdictCounts& n) {
  if (n[Verdict::error]) return verdict_symbol(Verdict::error);
  if (n[Verdict::fail]) return verdict_symbol(Verdict::fail);
  if (n[Verdict::mistrusted]) return verdict_symbol(Verdict::mistrusted);
  if (n[Verdict::pass]) return verdict_symbol(Verdict::pass);
  return verdict_symbol(Verdict::skip);
}

std::string compact_cell(const std::vector<const CheckResult*>& checks,
                         const std::map<std::string, std::string>& letter) {
  if (checks.empty()) return "—";
  VerdictCounts n;
  std::optional<double> worst;
  std::string skips;
  for (const CheckResult* c : checks) {
    n.add(*c);
    if (auto m = margin_of(*c); m && (!worst || *m > *worst)) worst = m;
    if (c->verdict == Verdict::skip) {
      const std::string& l = letter.at(skip_group(*c));
      if (skips.find(l) == std::string::npos) skips += l;
    }
  }
  std::sort(skips.begin(), skips.end());
  std::string out(cell_symbol(n));
  if (worst) out += " " + g3(*worst);
  if (n[Verdict::fail] + n[Verdict::error] + n[Verdict::mistrusted])
    out += fmt::format(" ({})", n[Verdict::fail] + n[Verdict::error] + n[Verdict::mistrusted]);
  if (!skips.empty()) out += " ⁽" + skips + "⁾";
  return out;
}

}  // namespace

void append_interrupted(std::string& out, const RunMetadata& m) {
  if (!m.interrupted) return;
  out +=
      "> **⚠️ Interrupted.** The run was stopped (SIGINT/SIGTERM) before it finished: this report "
      "holds only the cases completed before the stop.\n\n";
}

void append_compact_matrix(std::string& out, const RunReport& report) {
  if (report.checks.empty()) return;
  std::vector<std::pair<std::string, int>> ranked;
  const auto letter = skip_letters(report.checks, ranked);
  out +=
      "## Matrix (op × backend): worst margin\n\n"
      "Each cell: the worst verdict's symbol, the largest margin (error ÷ bound; a check passes at ≤ 1) among "
      "its passing and failing checks, the number of problems in brackets, and the letters of its skip reasons "
      "(legend below).\n\n";
  append_op_backend_rows(out, report,
                         [&](const std::vector<const CheckResult*>& checks) { return compact_cell(checks, letter); });
  auto o = std::back_inserter(out);
  if (!ranked.empty()) {
    out += "\nSkip reasons:\n\n| | Reason | Checks |\n|---|---|---:|\n";
    for (std::size_t i = 0; i < ranked.size() && i < 26; ++i)
      fmt::format_to(o, "| {} | {} | {} |\n", letter.at(ranked[i].first),
                     ranked[i].first.empty() ? "(no reason given)" : cell(shorten(ranked[i].first, 200)),
                     ranked[i].second);
    if (ranked.size() > 26) {
      int rest = 0;
      for (std::size_t i = 26; i < ranked.size(); ++i) rest += ranked[i].second;
      fmt::format_to(o, "| * | {} other reasons (see the details file) | {} |\n", ranked.size() - 26, rest);
    }
  }
  out += "\n";
}

namespace {

void append_problem_rows(std::string& out, const std::vector<const CheckResult*>& problems, std::size_t max_rows,
                         std::string_view details_name) {
  auto o = std::back_inserter(out);
  out += "| Verdict | Check | Backend | Margin | Reason | Repro |\n|---|---|---|---:|---|---|\n";
  for (std::size_t i = 0; i < problems.size() && i < max_rows; ++i) {
    const CheckResult& c = *problems[i];
    fmt::format_to(o, "| {} | {} {} | {} | {} | {} | {} |\n", verdict_badge(c.verdict), code(c.case_id), check_label(c),
                   code(c.backend), has_metrics(c) ? g3(c.metrics.margin) : "—",
                   c.reason.empty() ? "—" : cell(shorten(c.reason, 160)), c.repro.empty() ? "—" : code(c.repro));
  }
  if (problems.size() > max_rows)
    fmt::format_to(o, "\n{} more in [{}]({}).\n", problems.size() - max_rows, details_name, details_name);
  fmt::format_to(o, "\nWorst elements and full reasons: [{}]({}).\n\n", details_name, details_name);
}

}  // namespace

void append_problem_table(std::string& out, const RunReport& report, std::size_t max_rows,
                          std::string_view details_name) {
  std::vector<const CheckResult*> problems, expected;
  for (const CheckResult& c : report.checks)
    if (is_problem(c.verdict)) (c.expected ? expected : problems).push_back(&c);
  auto o = std::back_inserter(out);
  fmt::format_to(o, "## Failures, errors and mistrusted checks ({})\n\n", problems.size());
  if (problems.empty())
    out += "None.\n\n";
  else
    append_problem_rows(out, problems, max_rows, details_name);
  if (expected.empty()) return;
  // Known failures (run --expect FILE) apart: they do not fail the run, and a reader of the
  // report must still see them.
  fmt::format_to(o, "## Expected failures ({}, from --expect)\n\n", expected.size());
  append_problem_rows(out, expected, max_rows, details_name);
}

// A backend result 0 ULP from the reference is the correctly rounded value: its margin is the
// dtype's own rounding against the storage term of the bound (f16 results sit near 1 by
// construction), not something a kernel can improve. Numerical checks have no ULP distance.
bool exact_result(const CheckResult& c) {
  return c.metrics.max_ulp == 0 && (c.direction == Direction::forward || c.direction == Direction::backward ||
                                    c.direction == Direction::surrogate);
}

void append_thinnest_margins(std::string& out, const RunReport& report, std::size_t rows) {
  std::vector<std::pair<double, const CheckResult*>> thin;  // candidates for the table
  std::array<int, 5> bins{};                                // ≤ 0.01, ≤ 0.1, ≤ 0.5, ≤ 0.9, ≤ 1
  std::size_t passing = 0, exact = 0;
  for (const CheckResult& c : report.checks) {
    if (c.verdict != Verdict::pass) continue;
    auto m = margin_of(c);
    if (!m) continue;
    ++passing;
    ++bins[*m <= 0.01 ? 0 : *m <= 0.1 ? 1 : *m <= 0.5 ? 2 : *m <= 0.9 ? 3 : 4];
    if (exact_result(c))
      ++exact;
    else
      thin.emplace_back(*m, &c);
  }
  auto o = std::back_inserter(out);
  fmt::format_to(o, "## Thinnest margins\n\n");
  if (passing == 0) {
    out += "No passing check with a margin.\n\n";
    return;
  }
  fmt::format_to(o,
                 "Margins of the {} passing checks: {} ≤ 0.01, {} in (0.01, 0.1], {} in (0.1, 0.5], {} in (0.5, 0.9], "
                 "**{} in (0.9, 1]**.\n\n",
                 passing, bins[0], bins[1], bins[2], bins[3], bins[4]);
  fmt::format_to(o,
                 "The closest to failing, leaving out the {} forward / backward checks whose result is the correctly "
                 "rounded reference (max ULP 0: their margin is the dtype's own rounding):\n\n",
                 exact);
  rows = std::min(rows, thin.size());
  std::partial_sort(thin.begin(), thin.begin() + static_cast<std::ptrdiff_t>(rows), thin.end(),
                    [](auto& a, auto& b) { return a.first > b.first; });
  out += "| Margin | Check | Backend | Max ULP | Tolerance |\n|---:|---|---|---:|---|\n";
  for (std::size_t i = 0; i < rows; ++i) {
    const CheckResult& c = *thin[i].second;
    fmt::format_to(o, "| {} | {} {} | {} | {} | {} |\n", g3(thin[i].first), code(c.case_id), check_label(c),
                   code(c.backend), g3(c.metrics.max_ulp), c.tolerance.empty() ? "—" : cell(shorten(c.tolerance, 100)));
  }
  out += "\n";
}

}  // namespace gp::md
