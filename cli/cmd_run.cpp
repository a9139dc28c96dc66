// `gradparity run`: the parity run with reports.
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/isolated_run.hpp"
#include "core/memory_size.hpp"
#include "reports/expect_file.hpp"
#include "reports/junit_report.hpp"
#include "reports/summary.hpp"

namespace gp::cli {

namespace {

// A device that was found but could not be opened makes every one of its subjects SKIP as
// device_failed (harness/run/runner.cpp); for a device the user named, that is the failed driver a
// CI job must not pass over.
bool never_opened(const RunReport& report, const std::string& id, std::string& reason) {
  bool any = false;
  for (const CheckResult& c : report.checks) {
    if (c.backend != id) continue;
    if (c.verdict != Verdict::skip || c.reason_kind != ReasonKind::device_failed) return false;
    any = true;
    reason = c.reason;
  }
  return any;
}

void print_expectations(const std::string& file, const std::vector<Expectation>& expectations,
                        const ExpectationOutcome& outcome, const std::vector<CheckResult>& checks) {
  for (const UnexpectedFailure& u : outcome.unexpected)
    if (u.matched)  // the others are printed with every other failure
      fmt::print("UNEXPECTED {} [{}]: {} ({})\n", check_id(checks[u.check]), checks[u.check].backend, u.why, file);
  for (const StaleExpectation& s : outcome.stale) {
    const Expectation& e = expectations[s.expectation];
    fmt::print("STALE expectation {} [{}] in {}: its {} check(s) pass now; remove it\n", e.check, e.backend, file,
               s.passing);
  }
  fmt::print("expected failures ({}): {} of this run's failures, {} other(s), {} stale expectation(s)\n", file,
             outcome.expected, outcome.unexpected.size(), outcome.stale.size());
}

}  // namespace

int run_command(const RunCommand& cmd) {
  Selection sel = cmd.selection;
  if (!cmd.shard.empty()) parse_shard(cmd.shard, sel);
  const std::vector<const Subject*> subjects = select_subjects(sel);
  std::vector<SelectedDevice> devices = select_devices(cmd.common.backends, cmd.common.backend);
  if (subjects.empty()) fmt::print(stderr, "warning: the selection matches no case\n");
  // Found now rather than after the run, whose results would otherwise be lost.
  if (!cmd.report_dir.empty()) require_writable_dir(cmd.report_dir, "--report-dir");
  if (!cmd.junit.empty()) require_writable_file(cmd.junit, "--junit");
  if (!cmd.write_expect.empty()) require_writable_file(cmd.write_expect, "--write-expect");
  const std::vector<Expectation> expectations =
      cmd.expect.empty() ? std::vector<Expectation>{} : read_expect_file(cmd.expect);

  // The default run takes whatever backends the machine has; a backend named with --backend is
  // a requirement, and a CI job whose driver failed to load must not stay green.
  const bool named = !cmd.common.backends.empty();
  for (const auto& d : devices) {
    if (d.entry.create) continue;
    if (named && !cmd.allow_unavailable) {
      fmt::print(stderr,
                 "gradparity: {} is unavailable: {} (named with --backend; --allow-unavailable runs without it)\n",
                 d.id, d.entry.unavailable);
      return kUnavailableExit;
    }
    fmt::print(stderr, "note: {} is unavailable: {} (its cases SKIP)\n", d.id, d.entry.unavailable);
  }

  const auto t0 = std::chrono::steady_clock::now();
  const std::unique_ptr<ReferenceCache> cache = open_reference_cache(cmd.common);
  RunOptions opts;
  opts.context = {cmd.common.seed, cmd.common.numerical, cache.get(), cmd.common.sample};
  opts.reference_checks = cmd.reference_checks;
  opts.progress = cmd.progress;
  opts.jobs = cmd.jobs;
  InterruptGuard interrupt;
  opts.stop = &InterruptGuard::flag();

  // A plugin's device runs in child processes (cli/isolated_run.hpp), after the rest.
  std::vector<SelectedDevice> in_process, in_child;
  for (const auto& d : devices)
    (cmd.isolate && d.entry.run_in_child && d.entry.create ? in_child : in_process).push_back(d);
  RunReport report = run_parity(subjects, in_process, opts);
  if (!in_child.empty()) {
    std::map<std::string, std::size_t> order;  // a subject's checks stay together, in selection order
    for (const Subject* s : subjects) order.emplace(s->id(), order.size());
    for (const auto& d : in_child)
      for (auto& r : run_device_in_child(cmd, d, subjects)) report.checks.push_back(std::move(r));
    std::stable_sort(report.checks.begin(), report.checks.end(),
                     [&](const CheckResult& a, const CheckResult& b) { return order[a.case_id] < order[b.case_id]; });
    report.meta.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  double wall = report.meta.wall_seconds;
  ReferenceAccuracy accuracy = report.meta.reference_accuracy;
  PhaseProfile profile = report.meta.profile;
  report.meta = make_metadata(cmd.common);
  report.meta.wall_seconds = wall;
  report.meta.reference_accuracy = accuracy;
  report.meta.profile = profile;
  report.meta.profile.peak_host_bytes = peak_resident_bytes();
  report.meta.shard = cmd.shard;
  report.meta.interrupted = InterruptGuard::flag().load();
  for (const auto& d : devices) report.meta.devices.push_back(summarize_device(d));
  const ExpectationOutcome expected = apply_expectations(expectations, report.checks);

  if (!cmd.report_dir.empty()) write_reports(cmd.report_dir, report);
  if (!cmd.write_expect.empty()) {
    write_expect_file(cmd.write_expect, expectations_of(report.checks));
    fmt::print("expected failures: {}\n", cmd.write_expect);
  }
  if (!cmd.junit.empty()) {
    write_junit(cmd.junit, report);
    fmt::print("junit: {}\n", cmd.junit);
  }
  ReportSummary summary = summarize(report.checks);
  for (const auto& r : report.checks) {
    if ((r.verdict == Verdict::fail || r.verdict == Verdict::error) && !r.expected)
      fmt::print("{} {} [{}] {}: {}\n  repro: {}\n", verdict_name(r.verdict), r.case_id, r.backend, check_label(r),
                 r.reason, r.repro);
  }
  if (!cmd.expect.empty()) print_expectations(cmd.expect, expectations, expected, report.checks);
  for (const auto& [backend, counts] : summary.by_backend) fmt::print("  {:<12} {}\n", backend, summary_line(counts));
  if (cache) {
    const ReferenceCache::Counts n = cache->counts();
    fmt::print("reference cache: {} entries read, {} computed{} ({})\n", n.hits, n.misses + n.rejected,
               n.rejected ? fmt::format(" ({} faulty entries among them)", n.rejected) : "", cache->dir().string());
  }
  if (!accuracy.oracle.empty())
    fmt::print(
        "reference {} against {}: {} cases, {} points{}, worst {:.3g} of the tightest bound (limit {:g}) at {} {}\n",
        accuracy.worst_ratio <= accuracy.limit ? "verified" : "NOT VERIFIED", accuracy.oracle, accuracy.cases,
        accuracy.points,
        accuracy.points_skipped > 0
            ? fmt::format(" ({} large-tier points on longer slices not compared)", accuracy.points_skipped)
            : "",
        accuracy.worst_ratio, accuracy.limit, accuracy.worst_case, accuracy.worst_direction);
  if (report.meta.interrupted) {
    std::set<std::string> finished;
    for (const auto& r : report.checks) finished.insert(r.case_id);
    fmt::print("INTERRUPTED (signal {}) after {} of {} cases, {} in {:.1f} s; the reports hold the finished cases\n",
               InterruptGuard::signal_number(), finished.size(), subjects.size(), summary_line(summary.overall), wall);
    return kInterruptedExit;
  }
  const auto primitives = std::count_if(subjects.begin(), subjects.end(),
                                        [](const Subject* s) { return s->kind() == SubjectKind::primitive; });
  fmt::print("{} cases, {} models, {} in {:.1f} s\n", primitives, std::ssize(subjects) - primitives,
             summary_line(summary.overall), wall);
  if (named && !cmd.allow_unavailable) {
    for (const auto& d : devices) {
      std::string reason;
      if (never_opened(report, d.id, reason)) {
        fmt::print(stderr, "gradparity: {} (named with --backend) could not be used: {}\n", d.id, reason);
        return kUnavailableExit;
      }
    }
  }
  // A reference that errs by more than its limit could decide verdicts: the run proves nothing.
  const bool reference_unverified = !accuracy.oracle.empty() && !(accuracy.worst_ratio <= accuracy.limit);
  // With known failures, those alone leave the run green; a new one, or one that passes now, not.
  const bool failed =
      cmd.expect.empty() ? summary.overall[Verdict::fail] + summary.overall[Verdict::error] > 0 : !expected.green();
  return failed || reference_unverified ? 1 : 0;
}

}  // namespace gp::cli
