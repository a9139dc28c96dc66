#include "reports/html_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>
#include <map>

#include "reports/file_io.hpp"
#include "reports/html_parts.hpp"
#include "reports/markdown_sections.hpp"
#include "reports/summary.hpp"
#include "reports/xml_text.hpp"

namespace gp {

namespace {

constexpr std::string_view kReportStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
code{font:12px ui-monospace,monospace;background:#f6f6f6;padding:0 2px}
.banner{background:#fff3cd;border:1px solid #e0c060;padding:.6em}
.PASS{color:#1a7f37}.FAIL,.ERROR{color:#c00;font-weight:bold}.SKIP{color:#777}.MISTRUSTED{color:#a07000}
svg text{font:11px system-ui,sans-serif}svg .hb{font-weight:bold}svg .hd{text-anchor:middle}
svg .op{text-anchor:end}svg .x,svg .m{text-anchor:middle;fill:#fff;font-weight:bold}svg .sep{stroke:#999}
svg .lg{font-size:10px}svg .ax{font-size:9px;text-anchor:end}svg .cell:hover{stroke:#000}
.hists{display:flex;flex-wrap:wrap;gap:1em}details{margin:.2em 0}summary{cursor:pointer}
)";

// Following a heatmap link opens the op's collapsed table; the attribute on <html> tells the
// browser test that the script ran to its end.
constexpr std::string_view kScript = R"(
function openTarget(){var id=decodeURIComponent(location.hash.slice(1));var d=id&&document.getElementById(id);
if(d&&d.tagName==='DETAILS'){d.open=true;d.scrollIntoView();}}
window.addEventListener('hashchange',openTarget);openTarget();
document.documentElement.setAttribute('data-gp-ready','1');
)";

std::string esc(std::string_view s) { return xml_escape(s); }

// Plain names, coloured by class: the emoji of parity.md need a colour-emoji font that a CI
// machine's browser often lacks (they render as empty boxes).
std::string verdict_span(Verdict v) {
  return fmt::format("<span class=\"{}\">{}</span>", verdict_name(v), verdict_name(v));
}

void append_meta(std::string& out, const RunReport& r) {
  auto o = std::back_inserter(out);
  const RunMetadata& m = r.meta;
  out += "<table>\n";
  auto row = [&](std::string_view k, const std::string& v) {
    if (!v.empty()) fmt::format_to(o, "<tr><th>{}</th><td>{}</td></tr>\n", k, esc(v));
  };
  row("Tool version", m.version);
  row("Build",
      m.build_type + (m.build_options.empty() ? "" : " · " + fmt::format("{}", fmt::join(m.build_options, ", "))));
  row("Started (UTC)", m.started_at);
  row("Seed", std::to_string(m.seed));
  row("Shard", m.shard);
  row("Catalog", m.catalog);
  row("Wall time", md::g3(m.wall_seconds) + " s");
  row("Command", m.command_line);
  out +=
      "</table>\n<table><tr><th>Device</th><th>Backend</th><th>Name</th><th>Driver</th><th>Status</th>"
      "<th>Notes</th></tr>\n";
  // The notes carry what a device declares about itself (its math profile, budgets it promises and
  // those looser than that profile, backward formulations).
  for (const DeviceSummary& d : m.devices)
    fmt::format_to(o, "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                   esc(d.id), esc(d.backend), esc(d.name), esc(d.driver),
                   d.available ? "available" : "unavailable: " + esc(d.unavailable_reason),
                   esc(fmt::format("{}", fmt::join(d.notes, "; "))));
  out += "</table>\n";
}

void append_counts(std::string& out, const RunReport& r) {
  auto o = std::back_inserter(out);
  const ReportSummary s = summarize(r.checks);
  fmt::format_to(o, "<p><b>{}</b></p>\n<table><tr><th>Backend</th>", esc(summary_line(s.overall)));
  for (Verdict v : {Verdict::pass, Verdict::fail, Verdict::skip, Verdict::mistrusted, Verdict::error})
    fmt::format_to(o, "<th>{}</th>", verdict_span(v));
  out += "<th>Total</th></tr>\n";
  for (const auto& [b, n] : s.by_backend) {
    fmt::format_to(o, "<tr><td><code>{}</code></td>", esc(b));
    for (Verdict v : {Verdict::pass, Verdict::fail, Verdict::skip, Verdict::mistrusted, Verdict::error})
      fmt::format_to(o, "<td class=\"n\">{}</td>", n[v]);
    fmt::format_to(o, "<td class=\"n\">{}</td></tr>\n", n.total());
  }
  out += "</table>\n";
}

void append_check_row(std::string& out, const CheckResult& c) {
  fmt::format_to(std::back_inserter(out),
                 "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td>"
                 "<td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>\n",
                 esc(c.case_id), esc(c.backend), esc(check_label(c)), has_metrics(c) ? md::g3(c.metrics.margin) : "—",
                 has_metrics(c) ? md::g3(c.metrics.max_ulp) : "—", verdict_span(c.verdict),
                 esc(md::shorten(c.reason, 200)));
}

constexpr std::string_view kCheckHeader =
    "<table><tr><th>Case</th><th>Backend</th><th>Direction</th><th>Margin</th><th>Max ULP</th><th>Verdict</th>"
    "<th>Reason</th></tr>\n";

void append_problem_rows(std::string& out, const std::vector<const CheckResult*>& problems) {
  out += "<table><tr><th>Verdict</th><th>Check</th><th>Backend</th><th>Margin</th><th>Reason</th><th>Repro</th></tr>\n";
  for (const CheckResult* c : problems)
    fmt::format_to(
        std::back_inserter(out),
        "<tr><td>{}</td><td><code>{}</code> {}</td><td><code>{}</code></td><td class=\"n\">{}</td><td>{}</td>"
        "<td><code>{}</code></td></tr>\n",
        verdict_span(c->verdict), esc(c->case_id), esc(check_label(*c)), esc(c->backend),
        has_metrics(*c) ? md::g3(c->metrics.margin) : "—", esc(c->reason), esc(c->repro));
  out += "</table>\n";
}

// The failures, errors and mistrusted checks; those the run's --expect file accounts for apart.
void append_problems(std::string& out, const RunReport& r) {
  std::vector<const CheckResult*> problems, expected;
  for (const CheckResult& c : r.checks)
    if (c.verdict == Verdict::fail || c.verdict == Verdict::error || c.verdict == Verdict::mistrusted)
      (c.expected ? expected : problems).push_back(&c);
  fmt::format_to(std::back_inserter(out), "<h2 id=\"problems\">Failures, errors and mistrusted checks ({})</h2>\n",
                 problems.size());
  if (problems.empty())
    out += "<p>None.</p>\n";
  else
    append_problem_rows(out, problems);
  if (expected.empty()) return;
  fmt::format_to(std::back_inserter(out), "<h2 id=\"expected\">Expected failures ({}, from --expect)</h2>\n",
                 expected.size());
  append_problem_rows(out, expected);
}

// Per-op drill-down: every checked row, skips counted rather than listed (they are most rows of
// a full run and carry no numbers).
void append_per_op(std::string& out, const RunReport& r) {
  std::map<std::string, std::vector<const CheckResult*>> by_op;
  for (const CheckResult& c : r.checks) by_op[md::op_of(c)].push_back(&c);
  out += "<h2 id=\"ops\">Per op</h2>\n";
  for (const std::string& op : md::ops_in_catalog_order(r.checks)) {
    VerdictCounts n;
    for (const CheckResult* c : by_op[op]) n.add(*c);
    fmt::format_to(std::back_inserter(out), "<details id=\"op-{}\"><summary><b>{}</b>{} — {}</summary>\n{}", esc(op),
                   esc(op), md::forward_only(op) ? fmt::format(" ({})", md::kForwardOnly) : "", esc(summary_line(n)),
                   kCheckHeader);
    for (const CheckResult* c : by_op[op])
      if (c->verdict != Verdict::skip) append_check_row(out, *c);
    out += "</table>\n</details>\n";
  }
}

}  // namespace

std::string report_to_html(const RunReport& report) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>gradparity parity report</title>\n<style>";
  out += kReportStyle;
  out += "</style>\n</head>\n<body>\n<h1>gradparity parity report</h1>\n";
  if (report.meta.interrupted)
    out +=
        "<p class=\"banner\" id=\"interrupted\"><b>Interrupted.</b> The run was stopped before it finished: this "
        "report holds only the cases completed before the stop.</p>\n";
  append_meta(out, report);
  out += "<h2>Summary</h2>\n";
  append_counts(out, report);
  if (!report.checks.empty()) {
    out +=
        "<h2>Worst margin per op, backend and dtype</h2>\n<p>Margin = error ÷ bound (a check passes at ≤ 1); "
        "hover a cell for its counts, click it for the op's checks.</p>\n";
    out += html::heatmap_svg(report);
    out += "<h2>Margins per backend</h2>\n<div class=\"hists\">\n" + html::margin_histograms_svg(report) + "</div>\n";
    out +=
        "<h2>Sensitivity per backend</h2>\n<p>Per comparison: the smallest uniform relative error, in ULPs of the "
        "result, that would fail it.</p>\n<div class=\"hists\" id=\"sensitivity\">\n" +
        html::sensitivity_histograms_svg(report) + "</div>\n";
    if (std::string training = html::training_svgs(report); !training.empty())
      out +=
          "<h2 id=\"training\">Training</h2>\n<p>Per training run and backend: the loss per step against the "
          "reference, and the device's distance from it inside the band ± its bound through the steps (red: out of "
          "the band).</p>\n" +
          training;
    append_problems(out, report);
    append_per_op(out, report);
  }
  if (!report.stress.empty()) {
    out += "<h2>Stress</h2>\n<table><tr><th>Device</th><th>Mode</th><th>Calls</th><th>Result</th></tr>\n";
    for (const StressResult& s : report.stress)
      fmt::format_to(std::back_inserter(out),
                     "<tr><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n", esc(s.backend),
                     esc(s.mode), s.calls, s.failed() ? "<span class=\"FAIL\">FAIL</span>" : "clean");
    out += "</table>\n";
  }
  out += "<script>";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

void write_parity_html(const std::filesystem::path& path, const RunReport& report) {
  write_file_atomically(path, report_to_html(report));
}

}  // namespace gp
