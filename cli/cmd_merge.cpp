// `gradparity merge SHARD_DIR... --report-dir OUT`: the shards of one run (`run --shard k/n` on
// n CI runners) into one parity.json / parity.md / parity.html.
#include <fmt/core.h>

#include <filesystem>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "reports/junit_report.hpp"
#include "reports/merge.hpp"
#include "reports/summary.hpp"

namespace gp::cli {

namespace fs = std::filesystem;

int merge_command(const MergeCommand& cmd) {
  // Every input is read before anything is written: a bad shard leaves OUT as it was.
  std::vector<RunReport> shards;
  for (const std::string& in : cmd.inputs) {
    shards.push_back(read_report_input(in));
    std::error_code ec;
    const fs::path in_dir = fs::is_directory(in) ? fs::path(in) : fs::path(in).parent_path();
    if (fs::exists(cmd.report_dir) && fs::equivalent(in_dir.empty() ? "." : in_dir, cmd.report_dir, ec))
      throw UsageError(
          fmt::format("--report-dir '{}' holds the shard '{}': merging there would overwrite it", cmd.report_dir, in));
  }
  std::vector<std::string> warnings;
  RunReport merged;
  try {
    merged = merge_reports(shards, &warnings);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {  // overlapping shards, different seeds or catalogs: the inputs are wrong
    throw UsageError(e.what());
  }
  for (const std::string& w : warnings) fmt::print(stderr, "warning: {}\n", w);
  if (merged.meta.interrupted)
    fmt::print(stderr, "warning: a shard was interrupted: the merged report is marked interrupted\n");
  require_writable_dir(cmd.report_dir, "--report-dir");
  if (!cmd.junit.empty()) require_writable_file(cmd.junit, "--junit");
  write_reports(cmd.report_dir, merged);
  if (!cmd.junit.empty()) write_junit(cmd.junit, merged);
  const ReportSummary s = summarize(merged.checks);
  fmt::print("merged {} reports (shards {}): {}\n", shards.size(), merged.meta.shard.empty() ? "—" : merged.meta.shard,
             summary_line(s.overall));
  // The shards' runs judged their --expect files (a stale expectation failed its shard already).
  const VerdictCounts& n = s.overall;
  return n[Verdict::fail] - n.expected_of(Verdict::fail) + n[Verdict::error] - n.expected_of(Verdict::error) > 0 ? 1
                                                                                                                 : 0;
}

}  // namespace gp::cli
