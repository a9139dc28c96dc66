#include "reports/drift.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "reports/summary.hpp"

namespace gp {

namespace {

bool failing(Verdict v) { return v == Verdict::fail || v == Verdict::error; }

bool storage_rounding(const CheckResult& o, const CheckResult& c) {
  auto neighbour = [](const CheckResult& r) {
    return r.verdict == Verdict::pass && dtype_size(r.dtype) == 2 && r.metrics.max_ulp <= 1 &&
           (r.direction == Direction::forward || r.direction == Direction::backward);
  };
  return neighbour(o) && neighbour(c);
}

std::string label(const CheckResult& c) { return fmt::format("{} [{}] {}", c.case_id, c.backend, check_label(c)); }

std::string verdicts(const CheckChange& ch) {
  return fmt::format("{} -> {}", ch.old_check ? verdict_name(ch.old_check->verdict) : "absent",
                     ch.new_check ? verdict_name(ch.new_check->verdict) : "absent");
}

void list(std::string& out, std::string_view title, const std::vector<CheckChange>& items, std::size_t rows) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "\n{} ({}):\n", title, items.size());
  for (std::size_t i = 0; i < items.size() && i < rows; ++i) {
    const CheckChange& ch = items[i];
    const CheckResult& c = ch.new_check ? *ch.new_check : *ch.old_check;
    fmt::format_to(o, "  {}  {}", label(c), verdicts(ch));
    if (ch.new_check && !ch.new_check->reason.empty() && failing(ch.new_check->verdict))
      fmt::format_to(o, ": {}", ch.new_check->reason.substr(0, 160));
    if (ch.new_check && failing(ch.new_check->verdict) && !ch.new_check->repro.empty())
      fmt::format_to(o, "\n      repro: {}", ch.new_check->repro);
    out += "\n";
  }
  if (items.size() > rows) fmt::format_to(o, "  ... and {} more\n", items.size() - rows);
}

}  // namespace

double CheckChange::increase() const {
  if (std::isinf(new_margin) && std::isinf(old_margin)) return 0;
  return new_margin - old_margin;
}

double RunComparison::max_increase() const { return margins.empty() ? 0 : std::max(0.0, margins.front().increase()); }

RunComparison compare_runs(const RunReport& old_run, const RunReport& new_run) {
  std::map<std::string, const CheckResult*> before;
  for (const CheckResult& c : old_run.checks) before.emplace(check_key(c), &c);
  RunComparison cmp;
  std::map<std::string, bool> matched;
  for (const CheckResult& c : new_run.checks) {
    const std::string key = check_key(c);
    auto it = before.find(key);
    if (it == before.end()) {
      cmp.appeared.push_back({nullptr, &c});
      continue;
    }
    matched[key] = true;
    ++cmp.common;
    const CheckResult& o = *it->second;
    CheckChange ch{&o, &c};
    auto m0 = margin_of(o), m1 = margin_of(c);
    if (m0 && m1) {
      ch.old_margin = *m0;
      ch.new_margin = *m1;
      (storage_rounding(o, c) ? cmp.storage_rounding : cmp.margins).push_back(ch);
    }
    if (o.verdict == c.verdict) continue;
    if (failing(c.verdict) && !failing(o.verdict))
      cmp.new_failures.push_back(ch);
    else if (c.verdict == Verdict::pass && (failing(o.verdict) || o.verdict == Verdict::mistrusted))
      cmp.new_passes.push_back(ch);
    else
      cmp.other_verdict_changes.push_back(ch);
  }
  for (const CheckResult& c : old_run.checks)
    if (!matched.count(check_key(c))) cmp.vanished.push_back({&c, nullptr});
  std::stable_sort(cmp.margins.begin(), cmp.margins.end(),
                   [](const CheckChange& a, const CheckChange& b) { return a.increase() > b.increase(); });
  return cmp;
}

bool drift_exceeds(const RunComparison& cmp, double max_increase) {
  return cmp.max_increase() > max_increase || !cmp.new_failures.empty();
}

std::string comparison_to_text(const RunComparison& cmp, const RunReport& old_run, const RunReport& new_run,
                               double max_increase, std::size_t rows) {
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, "old: seed {}, {} checks, started {}, {}\nnew: seed {}, {} checks, started {}, {}\n",
                 old_run.meta.seed, old_run.checks.size(), old_run.meta.started_at, old_run.meta.version,
                 new_run.meta.seed, new_run.checks.size(), new_run.meta.started_at, new_run.meta.version);
  if (old_run.meta.seed != new_run.meta.seed)
    out += "note: the seeds differ, so the inputs differ: margins move with the inputs as well as with the code\n";
  if (old_run.meta.interrupted || new_run.meta.interrupted)
    out += "note: a run was interrupted: its missing checks show as vanished or appeared\n";
  fmt::format_to(o, "{} checks in both, {} with a margin in both; {} appeared, {} vanished\n", cmp.common,
                 cmp.margins.size() + cmp.storage_rounding.size(), cmp.appeared.size(), cmp.vanished.size());
  if (!cmp.storage_rounding.empty()) {
    const auto moved = std::count_if(cmp.storage_rounding.begin(), cmp.storage_rounding.end(),
                                     [](const CheckChange& ch) { return ch.increase() != 0; });
    fmt::format_to(o,
                   "{} of them are 16-bit results within one storage ULP of the reference in both runs, {} with a "
                   "changed margin: which neighbour of the exact value a correct kernel stores is not drift, and they "
                   "are left out below\n",
                   cmp.storage_rounding.size(), moved);
  }

  fmt::format_to(o, "\nLargest margin increases (margin = error / bound, fails above 1):\n");
  std::size_t shown = 0;
  for (const CheckChange& ch : cmp.margins) {
    if (shown == rows || !(ch.increase() > 0)) break;
    fmt::format_to(o, "  {:+.3g}  {:.3g} -> {:.3g}  {}\n", ch.increase(), ch.old_margin, ch.new_margin,
                   label(*ch.new_check));
    ++shown;
  }
  if (shown == 0) out += "  none\n";
  fmt::format_to(o, "Largest margin decreases:\n");
  shown = 0;
  for (auto it = cmp.margins.rbegin(); it != cmp.margins.rend() && shown < rows && it->increase() < 0; ++it, ++shown)
    fmt::format_to(o, "  {:+.3g}  {:.3g} -> {:.3g}  {}\n", it->increase(), it->old_margin, it->new_margin,
                   label(*it->new_check));
  if (shown == 0) out += "  none\n";

  list(out, "New failures and errors", cmp.new_failures, rows);
  list(out, "New passes", cmp.new_passes, rows);
  list(out, "Other verdict changes", cmp.other_verdict_changes, rows);
  list(out, "Checks that appeared", cmp.appeared, rows);
  list(out, "Checks that vanished", cmp.vanished, rows);

  const bool over = cmp.max_increase() > max_increase;
  fmt::format_to(o, "\ndrift: largest margin increase {:+.4g} (limit {:.4g}{}), {} new failure{}: {}\n",
                 cmp.max_increase(), max_increase, over ? ", exceeded" : "", cmp.new_failures.size(),
                 cmp.new_failures.size() == 1 ? "" : "s", drift_exceeds(cmp, max_increase) ? "FAIL" : "ok");
  return out;
}

}  // namespace gp
