// `gradparity compare OLD.json NEW.json`: margin and verdict drift between two runs; exit 1 when
// a margin rose by more than --max-margin-increase or a check newly fails.
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "reports/drift.hpp"

namespace gp::cli {

int compare_command(const CompareCommand& cmd) {
  const RunReport old_run = read_report_input(cmd.old_path);
  const RunReport new_run = read_report_input(cmd.new_path);
  const RunComparison cmp = compare_runs(old_run, new_run);
  fmt::print("{}", comparison_to_text(cmp, old_run, new_run, cmd.max_margin_increase, cmd.rows));
  return drift_exceeds(cmp, cmd.max_margin_increase) ? 1 : 0;
}

}  // namespace gp::cli
