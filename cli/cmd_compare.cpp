// `gradparity compare OLD NEW`: two parity.json give margin and verdict drift (exit 1 when a
// margin rose by more than --max-margin-increase or a check newly fails); two bench.json give the
// rows that became slower beyond their repetitions' noise (exit 1 when one did).
#include <fmt/core.h>

#include <filesystem>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "reports/bench_compare.hpp"
#include "reports/bench_json.hpp"
#include "reports/drift.hpp"
#include "reports/file_io.hpp"

namespace gp::cli {

namespace {

namespace fs = std::filesystem;

// A bench.json named directly or in a folder holding one (and no parity.json); nullopt otherwise.
std::optional<fs::path> bench_document(const std::string& path) {
  fs::path p(path);
  if (fs::is_directory(p)) {
    if (fs::exists(p / "parity.json") || !fs::exists(p / "bench.json")) return std::nullopt;
    return p / "bench.json";
  }
  if (!fs::is_regular_file(p)) return std::nullopt;
  try {
    if (is_bench_json_text(read_whole_file(p))) return p;
  } catch (const Error&) {
  }
  return std::nullopt;
}

BenchReport read_bench_input(const fs::path& p) {
  try {
    return read_bench_json(p);
  } catch (const Error& e) {
    std::string what = e.what();
    throw UsageError(fmt::format("cannot read bench report {}", what.substr(0, what.find('\n'))));
  }
}

}  // namespace

int compare_command(const CompareCommand& cmd) {
  const std::optional<fs::path> old_bench = bench_document(cmd.old_path), new_bench = bench_document(cmd.new_path);
  if (old_bench && new_bench) {
    const BenchCompareOptions opts{cmd.significance, cmd.min_slowdown, cmd.rows, cmd.absolute};
    const BenchReport before = read_bench_input(*old_bench), after = read_bench_input(*new_bench);
    const BenchComparison cmp = compare_bench(before, after, opts);  // points into both
    fmt::print("{}", bench_comparison_text(cmp, opts));
    return cmp.slower.empty() ? 0 : 1;
  }
  if (old_bench || new_bench)
    throw UsageError(fmt::format("'{}' is a bench report and '{}' is not: compare two of a kind",
                                 old_bench ? cmd.old_path : cmd.new_path, old_bench ? cmd.new_path : cmd.old_path));
  const RunReport old_run = read_report_input(cmd.old_path);
  const RunReport new_run = read_report_input(cmd.new_path);
  const RunComparison cmp = compare_runs(old_run, new_run);
  fmt::print("{}", comparison_to_text(cmp, old_run, new_run, cmd.max_margin_increase, cmd.rows));
  return drift_exceeds(cmp, cmd.max_margin_increase) ? 1 : 0;
}

}  // namespace gp::cli
