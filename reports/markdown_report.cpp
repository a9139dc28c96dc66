// parity.md: metadata, summary and the op x backend matrix; the detail sections live in
// markdown_sections.cpp.
#include "reports/markdown_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "core/memory_size.hpp"
#include "reports/file_io.hpp"
#include "reports/markdown_sections.hpp"
#include "reports/summary.hpp"
#include "results/result_names.hpp"

namespace gp::md {

namespace {

std::string or_dash(std::string_view text) { return text.empty() ? "—" : cell(text); }

template <typename Range>
std::string join(const Range& items, std::string_view sep) {
  return fmt::format("{}", fmt::join(items, sep));
}

// The most frequent skip reason of a cell, shortened: enough to tell "f64 unsupported" from
// "no device" at a glance; the full reasons are listed in the skip section.
std::string main_skip_reason(const std::vector<const CheckResult*>& checks) {
  std::map<std::string, int> count;
  for (const CheckResult* c : checks)
    if (needs_action(*c)) ++count[skip_group(*c)];
  auto best = std::max_element(count.begin(), count.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (best == count.end() || best->first.empty()) return "";
  std::string text = shorten(best->first, 40);
  if (count.size() > 1) text += fmt::format(" +{} more", count.size() - 1);
  return text;
}

std::string matrix_cell(const std::vector<const CheckResult*>& checks) {
  if (checks.empty()) return "—";
  VerdictCounts n;
  for (const CheckResult* c : checks) n.add(*c);
  if (n.all(Verdict::pass)) return fmt::format("✅ {}", n.total());
  if (n[Verdict::pass] && n[Verdict::pass] + n.covered == n.total())
    return fmt::format("✅ {} (+{} covered)", n[Verdict::pass], n.covered);
  std::vector<std::string> parts;
  if (n[Verdict::error]) parts.push_back(fmt::format("💥 {} error", n[Verdict::error]));
  if (n[Verdict::fail]) parts.push_back(fmt::format("❌ {} failed", n[Verdict::fail]));
  if (n[Verdict::mistrusted]) parts.push_back(fmt::format("⚠️ {} mistrusted", n[Verdict::mistrusted]));
  if (n[Verdict::pass]) parts.push_back(fmt::format("✅ {} pass", n[Verdict::pass]));
  if (n.actionable_skips()) {
    std::string reason = main_skip_reason(checks);
    parts.push_back(
        fmt::format("⏭️ {} skip{}", n.actionable_skips(), reason.empty() ? "" : " (" + cell(reason) + ")"));
  }
  if (n.covered) parts.push_back(fmt::format("{} covered", n.covered));
  return join(parts, ", ");
}

// "412 s on 2 workers: bounds 201 s (49%), ...; primitives 80 s, models 250 s, training 82 s"
std::string profile_text(const PhaseProfile& p) {
  const double total = p.total();
  std::vector<std::string> phases, kinds;
  for (Phase ph : kAllPhases)
    if (const double s = p.phase_total(ph); s > 0)
      phases.push_back(fmt::format("{} {} s ({:.0f}%)", phase_name(ph), g3(s), 100 * s / total));
  for (SubjectKind k : kAllSubjectKinds)
    if (const double s = p.kind_total(k); s > 0) kinds.push_back(fmt::format("{} {} s", subject_kind_name(k), g3(s)));
  const std::string device = p.device_total() > 0
                                 ? fmt::format("; the devices' own timers: {} s of the {} s of device calls",
                                               g3(p.device_total()), g3(p.phase_total(Phase::device_calls)))
                                 : "";
  const std::string peak =
      p.peak_host_bytes > 0 ? fmt::format("; peak host memory {}", memory_text(p.peak_host_bytes)) : "";
  return fmt::format("{} s of {} worker{}: {}; by kind: {}{}{}", g3(total), p.workers, p.workers == 1 ? "" : "s",
                     join(phases, ", "), join(kinds, ", "), device, peak);
}

// What the oracle's sample left out: cases over its size (a small-tier case is checked whole by
// `ctest -L oracle`; a large-tier case had no element on a slice short enough) and the large
// tier's elements on slices longer than the run's check takes.
std::string skipped_text(const ReferenceAccuracy& a) {
  std::string out;
  if (a.cases_skipped > 0)
    out += fmt::format("; {} cases over the sample's size (the small tier's are `ctest -L oracle`'s)", a.cases_skipped);
  if (a.points_skipped > 0)
    out += fmt::format("; {} elements of large-tier cases on slices longer than the check takes, not compared",
                       a.points_skipped);
  return out;
}

}  // namespace

void append_header(std::string& out, const RunMetadata& m) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "# gradparity parity report\n\n| | |\n|---|---|\n");
  fmt::format_to(o, "| Tool version | {} |\n", or_dash(m.version));
  fmt::format_to(o, "| Build type | {} |\n", or_dash(m.build_type));
  fmt::format_to(o, "| Build options | {} |\n", m.build_options.empty() ? "—" : cell(join(m.build_options, ", ")));
  fmt::format_to(o, "| Started (UTC) | {} |\n", or_dash(m.started_at));
  fmt::format_to(o, "| Seed | {} |\n", m.seed);
  if (!m.shard.empty()) fmt::format_to(o, "| Shard | {} |\n", cell(m.shard));
  fmt::format_to(o, "| Wall time | {} s |\n", g3(m.wall_seconds));
  if (!m.profile.empty()) fmt::format_to(o, "| Time per phase | {} |\n", profile_text(m.profile));
  const ReferenceAccuracy& a = m.reference_accuracy;
  if (!a.oracle.empty())
    fmt::format_to(o,
                   "| Reference accuracy | {} against {} on {} cases ({} sampled points{}): worst error {} of the "
                   "tightest backend bound (limit {}), {} {} element {} |\n",
                   a.worst_ratio <= a.limit ? "verified" : "**NOT verified**", a.oracle, a.cases, a.points,
                   skipped_text(a), g3(a.worst_ratio), g3(a.limit), code(a.worst_case), cell(a.worst_direction),
                   a.worst_index);
  fmt::format_to(o, "| Command | {} |\n\n", m.command_line.empty() ? "—" : code(m.command_line));

  fmt::format_to(o, "## Devices\n\n");
  if (m.devices.empty()) {
    fmt::format_to(o, "No devices recorded.\n\n");
    return;
  }
  fmt::format_to(o, "| Id | Backend | Device | Driver | API | Status | Notes |\n|---|---|---|---|---|---|---|\n");
  for (const DeviceSummary& d : m.devices) {
    std::string status =
        d.available ? "✅ available"
                    : "⏭️ unavailable" + (d.unavailable_reason.empty() ? "" : ": " + cell(d.unavailable_reason));
    fmt::format_to(o, "| {} | {} | {} | {} | {} | {} | {} |\n", code(d.id), or_dash(d.backend), or_dash(d.name),
                   or_dash(d.driver), or_dash(d.api_version), status,
                   d.notes.empty() ? "—" : cell(join(d.notes, "; ")));
  }
  out += "\n";
}

void append_summary(std::string& out, const RunReport& report) {
  const ReportSummary s = summarize(report.checks);
  auto o = std::back_inserter(out);
  fmt::format_to(o, "## Summary\n\n**{}**\n\n", summary_line(s.overall));
  if (s.by_backend.empty()) return;
  // SKIP counts what a user must act on, as in the summary line; `covered` the checks left to a
  // stronger check of the same result.
  fmt::format_to(o, "| Backend |");
  for (Verdict v : kAllVerdicts) fmt::format_to(o, " {} |", verdict_badge(v));
  fmt::format_to(o, " covered | Total |\n|---|");
  for (std::size_t i = 0; i <= std::size(kAllVerdicts) + 1; ++i) out += "---:|";
  out += "\n";
  for (const auto& [backend, counts] : s.by_backend) {
    fmt::format_to(o, "| {} |", code(backend));
    for (Verdict v : kAllVerdicts)
      fmt::format_to(o, " {} |", v == Verdict::skip ? counts.actionable_skips() : counts[v]);
    fmt::format_to(o, " {} | {} |\n", counts.covered, counts.total());
  }
  out += "\n";
}

void append_op_backend_rows(std::string& out, const RunReport& report, const CellRenderer& render) {
  const std::vector<std::string> backends = backends_in_order(report);
  std::map<std::pair<std::string, std::string>, std::vector<const CheckResult*>> by_cell;
  for (const CheckResult& c : report.checks) by_cell[{op_of(c), c.backend}].push_back(&c);
  auto o = std::back_inserter(out);
  out += "| Op |";
  for (const std::string& b : backends) fmt::format_to(o, " {} |", code(b));
  out += "\n|---|";
  for (std::size_t i = 0; i < backends.size(); ++i) out += "---|";
  out += "\n";
  for (const std::string& op : ops_in_catalog_order(report.checks)) {
    fmt::format_to(o, "| {}{} |", cell(op), forward_only(op) ? fmt::format(" ({})", kForwardOnly) : "");
    for (const std::string& b : backends) fmt::format_to(o, " {} |", render(by_cell[{op, b}]));
    out += "\n";
  }
}

void append_matrix(std::string& out, const RunReport& report) {
  if (report.checks.empty()) return;
  out += "## Verdicts per op and backend\n\n";
  append_op_backend_rows(out, report, matrix_cell);
  out += "\n";
}

}  // namespace gp::md

namespace gp {

// Rows the summary lists before it points to the details file: ~400 bytes each, so the summary
// stays far below 1 MiB however many checks fail.
constexpr std::size_t kProblemRows = 300;
constexpr std::size_t kThinnestRows = 20;

std::string report_to_markdown(const RunReport& report) {
  std::string out;
  md::append_header(out, report.meta);
  md::append_interrupted(out, report.meta);
  md::append_stress(out, report.stress);
  // A stress report has no checks: leave out their (empty) summary.
  if (report.checks.empty() && !report.stress.empty()) return out;
  md::append_summary(out, report);
  md::append_compact_matrix(out, report);
  md::append_problem_table(out, report, kProblemRows, kDetailsFileName);
  md::append_models(out, report);
  md::append_training(out, report);
  md::append_thinnest_margins(out, report, kThinnestRows);
  md::append_sensitivity(out, report);
  md::append_speed(out, report);
  md::append_loosened_tolerances(out, report);
  fmt::format_to(
      std::back_inserter(out),
      "## Details\n\nEvery check's metrics, grouped skip reasons and each problem's worst element: [{}]({}).\n",
      kDetailsFileName, kDetailsFileName);
  return out;
}

std::string report_to_details_markdown(const RunReport& report) {
  std::string out = "# gradparity parity report: details\n\n";
  fmt::format_to(std::back_inserter(out), "Seed {}{}, started {}; the summary is [parity.md](parity.md).\n\n",
                 report.meta.seed, report.meta.shard.empty() ? "" : ", shard " + md::cell(report.meta.shard),
                 report.meta.started_at.empty() ? "—" : report.meta.started_at);
  md::append_interrupted(out, report.meta);
  md::append_matrix(out, report);  // the verdict counts per cell, next to the tables they count
  md::append_problems(out, report);
  md::append_skip_reasons(out, report);
  md::append_per_op_tables(out, report);
  return out;
}

void write_parity_md(const std::filesystem::path& path, const RunReport& report) {
  write_file_atomically(path.parent_path() / kDetailsFileName, report_to_details_markdown(report));
  write_file_atomically(path, report_to_markdown(report));
}

}  // namespace gp
