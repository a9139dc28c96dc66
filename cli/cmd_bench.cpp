// `gradparity bench`: the selected cases' forward and backward calls timed on every selected
// device (bench/, docs/bench.md), written as DIR/bench.md and bench.json. Exit 1 when a call
// errored; a skipped row (an op a device lacks, a case too large for it) is not an error.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>

#include "bench/bench_runner.hpp"
#include "bench/presets.hpp"
#include "cli/bench_children.hpp"
#include "cli/child_process.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "core/error.hpp"
#include "harness/run/runner.hpp"
#include "reports/bench_accuracy.hpp"
#include "reports/bench_html.hpp"
#include "reports/bench_json.hpp"
#include "reports/bench_markdown.hpp"
#include "reports/file_io.hpp"

namespace gp::cli {

namespace {

void print_row(const BenchRow& r) {
  std::string what;
  if (r.outcome == BenchOutcome::timed) {
    const CallSpeed s = r.speed();
    what = fmt::format("{:>9} {:<6}", duration_text(s.seconds), s.device_timer ? "device" : "host");
    if (s.bytes > 0) what += fmt::format(" {:>7.3g} GB/s", s.gb_per_s());
    if (s.flops > 0) what += fmt::format(" {:>7.3g} GFLOP/s", s.gflop_per_s());
  } else {
    what = fmt::format("{}: {}", bench_outcome_name(r.outcome), r.reason.substr(0, r.reason.find('\n')));
  }
  fmt::print("  {:<10} {:<16} {:<44} {}\n", r.device, bench_call_name(r), what, r.case_id);
  std::fflush(stdout);
}

// `gradparity run` of the same selection and devices in a child process (its isolation of plugin
// devices, its reports in `dir`): the accuracy the rows are shown with. A run that could not
// start (a usage error, a named backend unavailable) stops the bench; failed checks do not.
std::string check_first(const BenchCommand& cmd, const BenchItems& items, const std::string& dir) {
  Selection sel = cmd.selection;
  if (!cmd.preset.empty()) {  // the preset's cases and models by their exact ids
    sel.scale = Scale::all;
    for (const std::string& id : items.ids())
      sel.filter +=
          (sel.filter.empty() ? "^(" : "|") + std::regex_replace(id, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
    sel.filter += ")$";
  }
  std::vector<std::string> a = {"gradparity",   "run", "--seed",  std::to_string(cmd.common.seed),
                                "--report-dir", dir,   "--scale", scale_name(sel.scale),
                                "--no-progress"};
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
  };
  if (!cmd.common.backends.empty()) a.insert(a.end(), {"--backend", joined(cmd.common.backends)});
  if (!sel.ops.empty()) a.insert(a.end(), {"--op", joined(sel.ops)});
  if (!sel.dtypes.empty()) a.insert(a.end(), {"--dtype", joined(sel.dtypes)});
  if (!sel.filter.empty()) a.insert(a.end(), {"--filter", sel.filter});
  if (!cmd.common.backend.cache_dir.empty()) a.insert(a.end(), {"--cache-dir", cmd.common.backend.cache_dir});
  fmt::print("bench --check: the parity run of the same selection first (reports in {})\n", dir);
  std::fflush(stdout);
  const ChildExit exit = run_self(a, [](double) { return std::string(); });
  if (exit.exit_code != 0 && exit.exit_code != 1)
    throw Error("bench --check: the parity run ended with " + exit.describe() + "; nothing was timed");
  return (std::filesystem::path(dir) / "parity.json").string();
}

// The preset's items, or the selection's (validated: unknown op names are usage errors).
BenchItems items_of(const BenchCommand& cmd) {
  if (cmd.preset.empty()) return bench_items_of(select_subjects(cmd.selection));
  const Selection& sel = cmd.selection;
  if (!sel.ops.empty() || !sel.dtypes.empty() || !sel.filter.empty() || sel.scale != Scale::small)
    throw UsageError("--preset " + cmd.preset + " names its own cases: leave out --op, --dtype, --filter and --scale");
  return preset_items(*find_bench_preset(cmd.preset));
}

}  // namespace

int bench_command(const BenchCommand& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  const BenchItems items = items_of(cmd);
  if (items.empty()) throw UsageError("the selection matches no case, model or training run");
  const std::vector<SelectedDevice> devices = select_devices(cmd.common.backends, cmd.common.backend);
  if (!cmd.report_dir.empty()) require_writable_dir(cmd.report_dir, "--report-dir");
  if (!cmd.json.empty()) require_writable_file(cmd.json, "--json");
  if (cmd.check && !cmd.parity.empty()) throw UsageError("--check and --parity both give the accuracy: name one");
  // As in run: a backend named with --backend is a requirement, not a row of skips.
  for (const auto& d : devices) {
    if (d.entry.create || cmd.common.backends.empty()) continue;
    fmt::print(stderr, "gradparity: {} is unavailable: {} (named with --backend)\n", d.id, d.entry.unavailable);
    return kUnavailableExit;
  }
  std::string parity_source = cmd.parity;
  if (cmd.check)
    parity_source =
        check_first(cmd, items, cmd.report_dir.empty() ? make_temp_path("bench-check", true) : cmd.report_dir);
  const RunReport parity = parity_source.empty() ? RunReport{} : read_report_input(parity_source);  // before the bench

  BenchReport report;
  report.meta = make_metadata(cmd.common);
  for (const auto& d : devices) report.meta.devices.push_back(summarize_device(d));
  report.min_time = cmd.min_time;
  report.repetitions = cmd.repetitions;
  if (const BenchPreset* p = find_bench_preset(cmd.preset)) {
    report.preset = std::string(p->name);
    report.preset_rows = p->rows;
  }
  BenchOptions opts;
  opts.seed = cmd.common.seed;
  opts.min_time = cmd.min_time;
  opts.repetitions = cmd.repetitions;
  opts.probes = cmd.probes;
  InterruptGuard interrupt;
  opts.stop = &InterruptGuard::flag();
  if (cmd.progress) {
    opts.on_row = print_row;
    opts.on_round = [t0](int round, int rounds, const std::string& device) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fmt::print(stderr, "  {}: {} ({:.1f} s)\n", device,
                 round == 0 ? std::string("calibrated") : fmt::format("repetition {} of {}", round, rounds), s);
    };
  }
  fmt::print("bench: {} cases, models and creations on {} devices, {} repetitions of at least {} per call\n",
             items.size(), devices.size(), cmd.repetitions, duration_text(cmd.min_time));
  std::fflush(stdout);
  for (const SelectedDevice& d : devices) {
    if (InterruptGuard::flag().load()) break;
    const bool in_child = d.entry.create && ((d.entry.run_in_child && cmd.isolate) || cmd.processes > 1);
    BenchMeasurement m =
        in_child ? bench_device_in_children(cmd, d, items, cmd.processes) : run_bench(items, {d}, opts);
    if (in_child && opts.on_row)
      for (const BenchRow& r : m.rows) opts.on_row(r);
    for (BenchRow& r : m.rows) report.rows.push_back(std::move(r));
    for (DeviceLimit& l : m.limits) report.limits.push_back(std::move(l));
  }
  if (!parity_source.empty()) {
    const std::size_t attached = attach_accuracy(report, parity);
    report.parity_source = parity_source;
    fmt::print("accuracy: {} of {} rows have checks in {}\n", attached, report.rows.size(), parity_source);
  }
  report.meta.interrupted = InterruptGuard::flag().load();
  report.meta.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!cmd.report_dir.empty()) {
    const std::filesystem::path dir(cmd.report_dir);
    write_bench_json(dir / "bench.json", report);
    write_file_atomically(dir / "bench.md", bench_to_markdown(report));
    write_file_atomically(dir / "bench.html", bench_to_html(report));
    fmt::print("reports: {}/bench.md, bench.html, bench.json\n", cmd.report_dir);
  }
  if (!cmd.json.empty()) {
    write_bench_json(cmd.json, report);
    fmt::print("json: {}\n", cmd.json);
  }
  if (!report.preset.empty()) fmt::print("\n{}\n", preset_table(report));
  const auto count = [&](BenchOutcome o) {
    return std::count_if(report.rows.begin(), report.rows.end(), [o](const BenchRow& r) { return r.outcome == o; });
  };
  fmt::print("bench: {} rows timed, {} skipped, {} errors in {:.1f} s\n", count(BenchOutcome::timed),
             count(BenchOutcome::skipped), count(BenchOutcome::error), report.meta.wall_seconds);
  if (report.meta.interrupted) return kInterruptedExit;
  return count(BenchOutcome::error) > 0 ? 1 : 0;
}

}  // namespace gp::cli
