#include "cli/bench_children.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "bench/presets.hpp"
#include "cli/cases_file.hpp"
#include "cli/child_process.hpp"
#include "cli/interrupt.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "reports/bench_json.hpp"
#include "reports/file_io.hpp"

namespace gp::cli {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> child_args(const BenchCommand& cmd, const std::string& device_id, const fs::path& dir,
                                    int repetitions, bool probes) {
  const CommonOptions& c = cmd.common;
  std::vector<std::string> a = {"gradparity",    "bench-child",
                                "--backend",     device_id,
                                "--seed",        std::to_string(c.seed),
                                "--min-time",    fmt::format("{}", cmd.min_time),
                                "--repetitions", std::to_string(repetitions),
                                "--cases",       (dir / "cases").string(),
                                "--out",         (dir / "bench.json").string(),
                                "--trace",       (dir / "started").string()};
  if (!c.backend.cache_dir.empty()) a.insert(a.end(), {"--cache-dir", c.backend.cache_dir});
  if (c.backend.vulkan_validation) a.push_back("--vk-validation");
  if (!probes) a.push_back("--no-probes");
  if (!cmd.preset.empty()) a.insert(a.end(), {"--preset", cmd.preset});  // its creations' sizes
  append_cases_file_args(a);
  return a;
}

// A later process's row merged into the first's: its repetitions appended (times `scale`), or its
// error or skip made the row's outcome.
void append_row(BenchRow& into, const BenchRow& from, double scale = 1) {
  if (into.outcome != BenchOutcome::timed) return;
  if (from.outcome != BenchOutcome::timed) {
    into.outcome = from.outcome;
    into.reason = from.reason;
    into.repetition_seconds.clear();
    return;
  }
  for (double t : from.repetition_seconds) into.repetition_seconds.push_back(t * scale);
}

// Rows of one device merged over processes (append_row), in the first process's order.
class MergedRows {
 public:
  void add(BenchRow&& r) {
    const auto key = std::make_pair(r.case_id, r.direction);
    const auto it = index_.find(key);
    if (it == index_.end()) {
      index_.emplace(key, rows_.size());
      rows_.push_back(std::move(r));
      return;
    }
    append_row(rows_[it->second], r);
  }
  std::vector<BenchRow> take() { return std::move(rows_); }

 private:
  std::map<std::pair<std::string, Direction>, std::size_t> index_;
  std::vector<BenchRow> rows_;
};

// A device's limits merged over processes. Each process sizes its arithmetic probe anew (a call
// of at least a millisecond), so a later process's size may differ: its times are brought to the
// first's size by the ratio of their operations (the probe is arithmetic-bound, so its time is
// proportional to them).
class MergedLimits {
 public:
  void add(DeviceLimit&& l) {
    const auto it = index_.find(l.dtype);
    if (it == index_.end()) {
      index_.emplace(l.dtype, limits_.size());
      limits_.push_back(std::move(l));
      return;
    }
    DeviceLimit& into = limits_[it->second];
    append_row(into.copy, l.copy);
    const double scale = l.arithmetic.flops > 0
                             ? static_cast<double>(into.arithmetic.flops) / static_cast<double>(l.arithmetic.flops)
                             : 1;
    append_row(into.arithmetic, l.arithmetic, scale);
  }
  std::vector<DeviceLimit> take() { return std::move(limits_); }

 private:
  std::map<std::string, std::size_t> index_;
  std::vector<DeviceLimit> limits_;
};

void add_errors(MergedRows& rows, const BenchItems& items, const std::string& device, const std::string& why) {
  for (BenchRow& r : bench_rows_of(items, device)) {
    r.outcome = BenchOutcome::error;
    r.reason = why;
    rows.add(std::move(r));
  }
}

}  // namespace

BenchMeasurement bench_device_in_children(const BenchCommand& cmd, const SelectedDevice& device,
                                          const BenchItems& items, int processes) {
  MergedRows rows;
  MergedLimits limits;
  std::vector<std::string> failed;  // items whose call crashed or hung a child: not run again
  bool probes = cmd.probes;
  const std::vector<std::string> ids = items.ids();
  for (int p = 0; p < processes && !InterruptGuard::flag().load(); ++p) {
    const int repetitions = cmd.repetitions / processes + (p < cmd.repetitions % processes ? 1 : 0);
    if (repetitions == 0) break;
    for (int attempt = 0; !InterruptGuard::flag().load(); ++attempt) {
      const fs::path dir = make_temp_path("bench-child", true);
      std::string list;
      for (const std::string& id : items.without(failed).ids()) list += id + "\n";
      if (list.empty()) break;
      write_file_atomically(dir / "cases", list);
      std::string mark;
      double last_change = 0;
      const ChildExit exit =
          run_self(child_args(cmd, device.id, dir, repetitions, probes), [&](double elapsed) -> std::string {
            if (const std::string m = read_child_file((dir / "started").string()); m != mark) {
              mark = m;
              last_change = elapsed;
            } else if (elapsed - last_change > cmd.case_timeout) {
              return fmt::format("no progress for {:g} s (--case-timeout; killed)", cmd.case_timeout);
            }
            return "";
          });
      if (exit.clean()) {
        if (cmd.progress)
          fmt::print(stderr, "  {}: process {} of {} done ({:.1f} s)\n", device.id, p + 1, processes, exit.seconds);
        BenchReport got = read_bench_json(dir / "bench.json");
        for (BenchRow& r : got.rows) rows.add(std::move(r));
        for (DeviceLimit& l : got.limits) limits.add(std::move(l));
        fs::remove_all(dir);
        break;
      }
      // "round case-id": the case whose calls were in progress.
      const std::string started = read_child_file((dir / "started").string());
      fs::remove_all(dir);
      const std::size_t space = started.find(' ');
      const std::string culprit = space == std::string::npos ? "" : started.substr(space + 1);
      const bool known = std::find(ids.begin(), ids.end(), culprit) != ids.end();
      if (!known && !culprit.empty() && probes) {  // a probe: go on without the probes
        probes = false;
        fmt::print(stderr,
                   "{}: the child process ended with {} in the probe {}; the bench goes on without the probes\n",
                   device.id, exit.describe(), culprit);
        continue;
      }
      if (!known) {  // before its first call: a new child would end the same way
        add_errors(rows, items.without(failed), device.id,
                   "the child process running " + device.id + " ended (" + exit.describe() + ") before its first call");
        return {rows.take(), {}};
      }
      failed.push_back(culprit);
      const std::string why = fmt::format(
          "the child process ended with {} in this case's calls (round {}); the "
          "bench went on without it",
          exit.describe(), started.substr(0, space));
      add_errors(rows, bench_items_of({culprit}, items.creations), device.id, why);
      fmt::print(stderr, "{}: the child process ended with {} in {}; the bench goes on in a new process\n", device.id,
                 exit.describe(), culprit);
    }
  }
  BenchMeasurement m;
  m.rows = rows.take();
  m.limits = limits.take();
  return m;
}

int bench_child_command(const BenchCommand& cmd) {
  if (cmd.common.backends.size() != 1 || cmd.child_cases.empty() || cmd.json.empty() || cmd.child_trace.empty())
    throw UsageError("bench-child needs exactly one --backend, --cases, --out and --trace");
  const BenchPreset* preset = find_bench_preset(cmd.preset);
  BenchItems items;
  try {
    items = bench_items_of(read_id_list(cmd.child_cases), preset ? preset->creations : std::vector<CreationSize>{});
  } catch (const Error& e) {
    throw UsageError("bench-child: " + std::string(e.what()) + " in " + cmd.child_cases);
  }
  const std::vector<SelectedDevice> devices = select_devices(cmd.common.backends, cmd.common.backend);
  if (devices.size() != 1) throw UsageError("bench-child: '" + cmd.common.backends.front() + "' is not one device");
  BenchOptions opts;
  opts.seed = cmd.common.seed;
  opts.min_time = cmd.min_time;
  opts.repetitions = cmd.repetitions;
  opts.probes = cmd.probes;
  opts.on_entry = [&](const std::string& id, int round) {
    write_file_atomically(cmd.child_trace, std::to_string(round) + " " + id);
  };
  BenchMeasurement m = run_bench(items, devices, opts);
  BenchReport report;
  report.rows = std::move(m.rows);
  report.limits = std::move(m.limits);
  write_bench_json(cmd.json, report);
  return 0;
}

}  // namespace gp::cli
