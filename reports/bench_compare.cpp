#include "reports/bench_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "reports/bench_markdown.hpp"

namespace gp {

namespace {

using RowKey = std::tuple<std::string, std::string, Direction>;
RowKey key_of(const BenchRow& r) { return {r.case_id, r.device, r.direction}; }

void list(std::string& out, const char* title, std::vector<BenchDelta> deltas, std::size_t rows) {
  if (deltas.empty()) return;
  std::sort(deltas.begin(), deltas.end(), [](const BenchDelta& a, const BenchDelta& b) {
    return std::abs(std::log(a.ratio)) > std::abs(std::log(b.ratio));
  });
  out += fmt::format("{} ({}):\n", title, deltas.size());
  for (std::size_t i = 0; i < deltas.size() && i < rows; ++i) {
    const BenchDelta& d = deltas[i];
    const double p = d.ratio > 1 ? d.slower.p_value : d.faster.p_value;
    out += fmt::format("  {:<10} {} {}: {} -> {} ({:.2f}x, p = {:.2g})\n", d.after->device, d.after->case_id,
                       direction_name(d.after->direction), duration_text(d.before->median_seconds()),
                       duration_text(d.after->median_seconds()), d.ratio, p);
  }
  if (deltas.size() > rows) out += fmt::format("  ... and {} more\n", deltas.size() - rows);
}

}  // namespace

BenchComparison compare_bench(const BenchReport& before, const BenchReport& after, const BenchCompareOptions& opts) {
  BenchComparison cmp;
  cmp.smallest_p_value = 0;
  std::map<RowKey, const BenchRow*> earlier;
  for (const BenchRow& r : before.rows) earlier[key_of(r)] = &r;
  std::map<RowKey, bool> paired;
  for (const BenchRow& r : after.rows) {
    const auto it = earlier.find(key_of(r));
    if (it == earlier.end()) {
      ++cmp.only_after;
      continue;
    }
    paired[it->first] = true;
    const BenchRow& b = *it->second;
    if (b.outcome != BenchOutcome::timed || r.outcome != BenchOutcome::timed) {
      ++cmp.not_timed;
      continue;
    }
    if (b.device_timer != r.device_timer) {
      ++cmp.timer_changed;
      continue;
    }
    ++cmp.compared;
    cmp.smallest_p_value =
        std::max(cmp.smallest_p_value, smallest_p_value(b.repetition_seconds.size(), r.repetition_seconds.size()));
    BenchDelta d{&b, &r, r.median_seconds() / b.median_seconds(),
                 later_is_larger(b.repetition_seconds, r.repetition_seconds),
                 later_is_larger(r.repetition_seconds, b.repetition_seconds)};
    if (d.ratio > 1 + opts.min_slowdown && d.slower.p_value < opts.significance) cmp.slower.push_back(d);
    if (d.ratio < 1 / (1 + opts.min_slowdown) && d.faster.p_value < opts.significance) cmp.faster.push_back(d);
  }
  cmp.only_before = earlier.size() - paired.size();
  return cmp;
}

std::string bench_comparison_text(const BenchComparison& cmp, const BenchCompareOptions& opts) {
  std::string out = fmt::format(
      "bench compare: {} rows timed in both; slower or faster counts where the one-sided rank test of the "
      "repetitions gives p < {:g} and the median changed by more than {:g} %\n",
      cmp.compared, opts.significance, opts.min_slowdown * 100);
  if (cmp.compared > 0 && cmp.smallest_p_value >= opts.significance)
    out += fmt::format(
        "warning: with these repetitions the test cannot reach p < {:g} (at best {:.2g}): run bench with more "
        "--repetitions\n",
        opts.significance, cmp.smallest_p_value);
  list(out, "slower", cmp.slower, opts.rows);
  list(out, "faster", cmp.faster, opts.rows);
  if (cmp.timer_changed) out += fmt::format("{} rows changed timer (device / host): not compared\n", cmp.timer_changed);
  if (cmp.not_timed) out += fmt::format("{} rows skipped or errored in one of the runs\n", cmp.not_timed);
  if (cmp.only_before || cmp.only_after)
    out += fmt::format("{} rows only in the old run, {} only in the new\n", cmp.only_before, cmp.only_after);
  out += cmp.slower.empty() ? "no slowdown\n" : fmt::format("{} slower rows\n", cmp.slower.size());
  return out;
}

}  // namespace gp
