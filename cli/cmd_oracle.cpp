// `gradparity oracle`: the long-double reference against its own formulas in 166-bit MPFR
// (harness/audit/oracle_check.hpp), per op x direction, worst ratio |ref - oracle| / tightest bound;
// models and training runs named with --op on sampled nodes of their graphs (oracle_model.hpp).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "harness/audit/oracle_check.hpp"
#include "harness/audit/oracle_model.hpp"
#include "reference/oracle.hpp"

namespace gp::cli {

namespace {

std::string join_inputs(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : ", ") + fmt::format("{:.17g}", x);
  return s.empty() ? "-" : "x=(" + s + ")";
}

}  // namespace

int oracle_command(const OracleCommand& cmd) {
  if (cmd.sample < 1) throw UsageError("--sample must be at least 1, got " + std::to_string(cmd.sample));
  std::vector<const Case*> cases = select_cases(cmd.selection);
  if (cases.empty()) fmt::print(stderr, "warning: the selection matches no case\n");
  OracleOptions opts;
  opts.sample = cmd.sample;
  opts.all = cmd.all;
  const int jobs = cmd.jobs > 0 ? cmd.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  fmt::print(stderr, "oracle: {} cases, seed {}, {}, {} ({} thread{})\n", cases.size(), cmd.seed,
             cmd.all ? "every element" : fmt::format("sample {}", cmd.sample), ref::oracle_description(), jobs,
             jobs == 1 ? "" : "s");

  auto progress = [&](std::size_t done, std::size_t total, const OracleCaseResult& r) {
    if (!cmd.progress) return;
    fmt::print(stderr, "[{}/{}] {} worst {:.3g} ({} points, {:.2f} s){}\n", done, total, r.case_id, r.worst_ratio(),
               r.points, r.seconds, r.error.empty() ? "" : " ERROR " + r.error);
  };
  std::vector<OracleCaseResult> results = run_oracle(cases, cmd.seed, opts, jobs, progress);
  // Models and training runs where --op names them: the sampled nodes of their reference graphs.
  for (const CompositeSubject* m : select_named_models(cmd.selection)) {
    for (auto& r : oracle_check_model(*m, cmd.seed, opts)) {
      progress(results.size() + 1, results.size() + 1, r);
      results.push_back(std::move(r));
    }
  }

  fmt::print("{:<26} {:<18} {:>6} {:>9} {:>11} {:>9}  {}\n", "op", "direction", "cases", "points", "worst", "max rel",
             "where");
  bool failed = false;
  for (const OracleSummaryRow& row : summarize_oracle(results)) {
    const bool bad = !(row.worst_ratio <= kOracleRatioLimit);
    failed |= bad;
    fmt::print(
        "{:<26} {:<18} {:>6} {:>9} {:>11.3e} {:>9.2e}  {} index {} {} ref {:.17g} oracle {:.17g} bound {:.3g}{}\n",
        row.op_label, row.direction, row.cases, row.points, row.worst_ratio, row.max_rel, row.worst_case,
        row.worst.worst_index, join_inputs(row.worst.worst_inputs), row.worst.reference, row.worst.oracle,
        row.worst.bound, bad ? "  FAIL" : "");
  }
  for (const auto& r : results)
    if (!r.error.empty()) {
      failed = true;
      fmt::print("ERROR {}: {}\n", r.case_id, r.error);
    }
  const OracleTotals t = oracle_totals(results);
  fmt::print("{} cases, {} points, worst ratio {:.3e} ({} {}), limit {}: {}\n", t.cases, t.points, t.worst_ratio,
             t.worst_case, t.worst_direction, kOracleRatioLimit, failed ? "FAIL" : "PASS");
  return failed ? 1 : 0;
}

}  // namespace gp::cli
