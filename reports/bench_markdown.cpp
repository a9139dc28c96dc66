#include "reports/bench_markdown.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "reports/markdown_sections.hpp"

namespace gp {

namespace {

std::string rate(double per_s, std::int64_t amount) { return amount > 0 ? md::g3(per_s) : std::string("—"); }

// The spread of the repetitions around the median, as percentages: "−1.2 % / +3.4 %".
std::string spread(const BenchRow& r) {
  const double m = r.median_seconds();
  if (!(m > 0)) return "—";
  return fmt::format("−{:.1f} % / +{:.1f} %", (m - r.min_seconds()) / m * 100, (r.max_seconds() - m) / m * 100);
}

std::string fraction(double f) { return f > 0 ? fmt::format("{:.2f}", f) : std::string("—"); }

std::string accuracy_cells(const BenchRow& r) {
  if (!r.accuracy) return "— | — | —";
  const RowAccuracy& a = *r.accuracy;
  return fmt::format("{} | {} | {}", md::verdict_symbol(a.verdict), md::g3(a.margin), md::g3(a.sensitivity_ulp));
}

void append_device(std::string& out, const BenchReport& report, const std::string& device) {
  const bool accuracy = !report.parity_source.empty();
  std::string timed, others;
  auto t = std::back_inserter(timed);
  auto o = std::back_inserter(others);
  for (const BenchRow& r : report.rows) {
    if (r.device != device) continue;
    if (r.outcome != BenchOutcome::timed) {
      fmt::format_to(o, "| {} | {} | {} | {} |\n", md::code(r.case_id), bench_call_name(r),
                     bench_outcome_name(r.outcome), md::cell(md::shorten(r.reason, 200)));
      continue;
    }
    const CallSpeed s = r.speed();
    fmt::format_to(t, "| {} | {} | {} | {} | {} | {} | {} | {} |", md::code(r.case_id), bench_call_name(r),
                   duration_text(s.seconds), spread(r), s.device_timer ? "device" : "host", rate(s.gb_per_s(), s.bytes),
                   rate(s.gflop_per_s(), s.flops),
                   fraction(r.flops > 0 ? report.roofline_fraction(r) : report.copy_fraction(r)));
    fmt::format_to(t, "{}\n", accuracy ? " " + accuracy_cells(r) + " |" : "");
  }
  out += fmt::format("## {}\n\n", md::code(device));
  std::string limits;
  for (const DeviceLimit& l : report.limits) {
    if (l.device != device) continue;
    auto measured = [](const BenchRow& probe, const std::string& figure) {
      return probe.outcome == BenchOutcome::timed ? fmt::format("{} ({})", figure, md::code(probe.case_id))
                                                  : "not measured: " + md::cell(probe.reason);
    };
    limits += fmt::format("| {} | {} | {} |\n", l.dtype, measured(l.copy, md::g3(l.copy_gb_per_s()) + " GB/s"),
                          measured(l.arithmetic, md::g3(l.arithmetic_gflop_per_s()) + " GFLOP/s"));
  }
  if (!limits.empty())
    out +=
        "The device's limits (the copy: the catalog's reshape of one long tensor; the arithmetic: the backend's "
        "own multiply-add chains):\n\n| dtype | copy | arithmetic |\n|---|---|---|\n" +
        limits + "\n";
  if (!timed.empty())
    out += std::string("| Case | Call | Median | Spread (min / max) | Timer | GB/s | GFLOP/s | Of limit |") +
           (accuracy ? " Parity | Margin | Sensitivity (ULP) |\n" : "\n") + "|---|---|---:|---|---|---:|---:|---:|" +
           (accuracy ? "---|---:|---:|\n" : "\n") + timed + "\n";
  if (!others.empty()) out += "| Case | Call | Outcome | Reason |\n|---|---|---|---|\n" + others + "\n";
}

// A preset row's cell on one device: its rows' medians ("3.8 µs / 7.8 µs"), or what kept it
// from being timed.
std::string preset_cell(const BenchReport& report, const PresetRow& p, const std::string& device) {
  std::string cell;
  for (const BenchRow& r : report.rows) {
    if (r.device != device || r.case_id != p.id) continue;
    const std::string what = r.outcome == BenchOutcome::timed ? duration_text(r.median_seconds())
                                                              : std::string(bench_outcome_name(r.outcome));
    cell += (cell.empty() ? "" : " / ") + what;
  }
  return cell.empty() ? "—" : cell;
}

}  // namespace

std::string preset_table(const BenchReport& report) {
  if (report.preset.empty()) return "";
  std::vector<std::string> devices;
  for (const BenchRow& r : report.rows)
    if (std::find(devices.begin(), devices.end(), r.device) == devices.end()) devices.push_back(r.device);
  std::string out = "| | Case |";
  std::string rule = "|---|---|";
  for (const std::string& d : devices) {
    out += " " + md::code(d) + " |";
    rule += "---:|";
  }
  out += "\n" + rule + "\n";
  for (const PresetRow& p : report.preset_rows) {
    out += fmt::format("| {} | {} |", p.label, md::code(p.id));
    for (const std::string& d : devices) out += " " + preset_cell(report, p, d) + " |";
    out += "\n";
  }
  return out;
}

std::string duration_text(double seconds) {
  if (!(seconds > 0)) return "—";
  if (seconds < 1e-3) return fmt::format("{} µs", md::g3(seconds * 1e6));
  if (seconds < 1) return fmt::format("{} ms", md::g3(seconds * 1e3));
  return fmt::format("{} s", md::g3(seconds));
}

std::string bench_to_markdown(const BenchReport& report) {
  const RunMetadata& m = report.meta;
  std::size_t timed = 0, skipped = 0, errors = 0;
  for (const BenchRow& r : report.rows)
    (r.outcome == BenchOutcome::timed ? timed : r.outcome == BenchOutcome::skipped ? skipped : errors) += 1;
  std::string out = "# gradparity bench\n\n";
  out += fmt::format("- gradparity {} ({}), started {}, {:.1f} s{}\n", m.version, m.build_type, m.started_at,
                     m.wall_seconds, m.interrupted ? ", **interrupted**: the rows finished before the stop" : "");
  out += fmt::format("- command: {}\n", md::code(m.command_line));
  out += fmt::format("- {} repetitions of at least {} each, inputs of seed {}\n", report.repetitions,
                     duration_text(report.min_time), m.seed);
  out += fmt::format("- rows: {} timed, {} skipped, {} errors\n", timed, skipped, errors);
  if (!report.parity_source.empty())
    out += fmt::format(
        "- accuracy from {}: its checks of the same calls (verdict, largest margin, smallest sensitivity)\n",
        md::code(report.parity_source));
  out += "\n";
  if (!report.preset.empty())
    out += fmt::format(
        "## Preset {}\n\nThe median time per call on each device: forward / backward for a primitive call, "
        "forward / forward and backward for a model, one step for a training run, one tensor created from host "
        "data; a skipped or failed row says so (its reason is in the device's section).\n\n{}\n",
        report.preset, preset_table(report));
  out +=
      "Each row is one call between two synchronisations of the queue, its inputs resident on the device: the "
      "median over the repetitions of the mean time per call, by the device's own timers (OpenCL profiling "
      "events, Vulkan timestamps) or the host's clock around the call and its wait. GB/s counts each tensor the "
      "call must read or write once (a lower bound of its traffic); GFLOP/s counts the contractions' 2mnk "
      "(docs/bench.md). \"Of limit\": for an op without operations counted, its GB/s over the device's copy "
      "bandwidth in its dtype; for a contraction, its GFLOP/s over the roofline's bound at its operations per "
      "byte (the smaller of the arithmetic rate and the copy bandwidth times them).\n\n";
  for (const DeviceSummary& d : m.devices) {
    out += d.available ? "" : fmt::format("`{}`: unavailable ({})\n\n", d.id, d.unavailable_reason);
    if (d.available) append_device(out, report, d.id);
  }
  return out;
}

}  // namespace gp
