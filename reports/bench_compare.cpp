#include "reports/bench_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "reports/bench_markdown.hpp"
#include "results/bench_names.hpp"

namespace gp {

namespace {

using RowKey = std::tuple<std::string, std::string, Direction>;
RowKey key_of(const BenchRow& r) { return {r.case_id, r.device, r.direction}; }

void list(std::string& out, const char* title, std::vector<BenchDelta> deltas, std::size_t rows) {
  if (deltas.empty()) return;
  std::sort(deltas.begin(), deltas.end(), [](const BenchDelta& a, const BenchDelta& b) {
    return std::abs(std::log(a.relative)) > std::abs(std::log(b.relative));
  });
  out += fmt::format("{} ({}):\n", title, deltas.size());
  for (std::size_t i = 0; i < deltas.size() && i < rows; ++i) {
    const BenchDelta& d = deltas[i];
    const double p = d.ratio > 1 ? std::max(d.slower.p_value, d.slower_relative.p_value)
                                 : std::max(d.faster.p_value, d.faster_relative.p_value);
    out +=
        fmt::format("  {:<10} {} {}: {} -> {} ({:.2f}x; {:.2f}x of the device's shift; p = {:.2g})\n", d.after->device,
                    d.after->case_id, direction_name(d.after->direction), duration_text(d.before->median_seconds()),
                    duration_text(d.after->median_seconds()), d.ratio, d.relative, p);
  }
  if (deltas.size() > rows) out += fmt::format("  ... and {} more\n", deltas.size() - rows);
}

}  // namespace

BenchComparison compare_bench(const BenchReport& before, const BenchReport& after, const BenchCompareOptions& opts) {
  BenchComparison cmp;
  std::map<RowKey, const BenchRow*> earlier;
  for (const BenchRow& r : before.rows) earlier[key_of(r)] = &r;
  std::map<RowKey, bool> paired;
  std::vector<std::pair<const BenchRow*, const BenchRow*>> pairs;
  std::map<std::string, std::vector<double>> ratios;  // per device
  for (const BenchRow& r : after.rows) {
    const auto it = earlier.find(key_of(r));
    if (it == earlier.end()) {
      ++cmp.only_after;
      continue;
    }
    paired[it->first] = true;
    const BenchRow& b = *it->second;
    // A row interrupted before its first repetition has no time to compare.
    if (b.outcome != BenchOutcome::timed || r.outcome != BenchOutcome::timed || b.repetition_seconds.empty() ||
        r.repetition_seconds.empty()) {
      ++cmp.not_timed;
      continue;
    }
    if (b.device_timer != r.device_timer) {
      ++cmp.timer_changed;
      continue;
    }
    pairs.emplace_back(&b, &r);
    ratios[r.device].push_back(r.median_seconds() / b.median_seconds());
  }
  cmp.only_before = earlier.size() - paired.size();
  std::map<std::string, double> shift_of;
  for (const auto& [device, v] : ratios) {
    DeviceShift s{device, v.size(), median_of(v), !opts.absolute && v.size() >= kShiftRows};
    shift_of[device] = s.applied ? s.ratio : 1;
    cmp.shifts.push_back(s);
  }
  for (const auto& [b, r] : pairs) {
    ++cmp.compared;
    cmp.smallest_p_value =
        std::max(cmp.smallest_p_value, smallest_p_value(b->repetition_seconds.size(), r->repetition_seconds.size()));
    const double shift = shift_of[r->device];
    std::vector<double> expected = b->repetition_seconds;  // the old times as the new machine would give them
    for (double& t : expected) t *= shift;
    BenchDelta d{b,
                 r,
                 r->median_seconds() / b->median_seconds(),
                 r->median_seconds() / b->median_seconds() / shift,
                 later_is_larger(b->repetition_seconds, r->repetition_seconds),
                 later_is_larger(r->repetition_seconds, b->repetition_seconds),
                 later_is_larger(expected, r->repetition_seconds),
                 later_is_larger(r->repetition_seconds, expected)};
    const double up = 1 + opts.min_slowdown;
    const bool slower = d.ratio > up && d.slower.p_value < opts.significance;
    const bool slower_relative = d.relative > up && d.slower_relative.p_value < opts.significance;
    const bool faster = d.ratio < 1 / up && d.faster.p_value < opts.significance;
    const bool faster_relative = d.relative < 1 / up && d.faster_relative.p_value < opts.significance;
    if (slower && slower_relative) cmp.slower.push_back(d);
    if (faster && faster_relative) cmp.faster.push_back(d);
  }
  return cmp;
}

std::string bench_comparison_text(const BenchComparison& cmp, const BenchCompareOptions& opts) {
  std::string out = fmt::format(
      "bench compare: {} rows timed in both; slower or faster counts where the one-sided rank test of the "
      "repetitions gives p < {:g} and the median changed by more than {:g} %\n",
      cmp.compared, opts.significance, opts.min_slowdown * 100);
  for (const DeviceShift& s : cmp.shifts) {
    if (!s.applied && s.rows >= kShiftRows) continue;  // --absolute: nothing taken out
    const bool moved = s.ratio > 1 + opts.min_slowdown || s.ratio < 1 / (1 + opts.min_slowdown);
    out += fmt::format("{}: new / old {:.2f} over its {} rows (median){}\n", s.device, s.ratio, s.rows,
                       !s.applied ? fmt::format(", too few rows (< {}): rows judged as measured alone", kShiftRows)
                       : moved    ? ": the whole device moved (the machine, or code every call shares); a row counts "
                                    "when it changed both as measured and relative to this (--absolute: as measured)"
                                  : "");
  }
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
