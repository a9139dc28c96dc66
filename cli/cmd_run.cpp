// `gradparity run`: the parity run with reports.
#include <fmt/core.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "reports/summary.hpp"

namespace gp::cli {

int run_command(const RunCommand& cmd) {
  Selection sel = cmd.selection;
  if (!cmd.shard.empty()) parse_shard(cmd.shard, sel);
  std::vector<const Case*> cases = select_cases(sel);
  std::vector<SelectedDevice> devices = select_devices(cmd.common.backends, cmd.common.backend);
  if (cases.empty()) fmt::print(stderr, "warning: the selection matches no case\n");

  RunOptions opts;
  opts.seed = cmd.common.seed;
  opts.numerical = cmd.common.numerical;
  opts.reference_checks = cmd.reference_checks;
  opts.progress = cmd.progress;
  opts.jobs = cmd.jobs;
  for (const auto& d : devices)
    if (!d.entry.create)
      fmt::print(stderr, "note: {} is unavailable: {} (its cases SKIP)\n", d.id, d.entry.unavailable);

  RunReport report = run_parity(cases, devices, opts);
  double wall = report.meta.wall_seconds;
  ReferenceAccuracy accuracy = report.meta.reference_accuracy;
  report.meta = make_metadata(cmd.common);
  report.meta.wall_seconds = wall;
  report.meta.reference_accuracy = accuracy;
  report.meta.shard = cmd.shard;
  for (const auto& d : devices) report.meta.devices.push_back(summarize_device(d));

  if (!cmd.report_dir.empty()) write_reports(cmd.report_dir, report);
  ReportSummary summary = summarize(report.checks);
  for (const auto& r : report.checks) {
    if (r.verdict == Verdict::fail || r.verdict == Verdict::error)
      fmt::print("{} {} [{}] {}: {}\n  repro: {}\n", verdict_name(r.verdict), r.case_id, r.backend,
                 direction_label(r.direction, r.input), r.reason, r.repro);
  }
  for (const auto& [backend, counts] : summary.by_backend) fmt::print("  {:<12} {}\n", backend, summary_line(counts));
  if (!accuracy.oracle.empty())
    fmt::print(
        "reference {} against {}: {} cases, {} points, worst {:.3g} of the tightest bound (limit {:g}) at {} {}\n",
        accuracy.worst_ratio <= accuracy.limit ? "verified" : "NOT VERIFIED", accuracy.oracle, accuracy.cases,
        accuracy.points, accuracy.worst_ratio, accuracy.limit, accuracy.worst_case, accuracy.worst_direction);
  fmt::print("{} cases, {} in {:.1f} s\n", cases.size(), summary_line(summary.overall), wall);
  return summary.overall[Verdict::fail] + summary.overall[Verdict::error] > 0 ? 1 : 0;
}

}  // namespace gp::cli
