#include "cli/isolated_run.hpp"

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "cli/cases_file.hpp"
#include "cli/child_process.hpp"
#include "cli/interrupt.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "harness/graph/composite.hpp"
#include "reports/json_report.hpp"

namespace gp::cli {

namespace fs = std::filesystem;

namespace {

// The trace a child leaves in its folder: `started` holds the id of the case it runs now (or ran
// last), `done-NNNNNN.json` the checks of each finished case, in the parity.json format.
constexpr const char* kStarted = "started";

struct Trace {
  std::vector<CheckResult> checks;
  std::set<std::string> done;
  std::string started;
};

Trace read_trace(const fs::path& dir, const std::string& device_id) {
  Trace t;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("done-", 0) == 0 && e.path().extension() == ".json")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    RunReport r = read_parity_json(f);
    for (auto& c : r.checks) {
      t.done.insert(c.case_id);
      // The child's own reference ERRORs repeat the parent's: only the device's checks count.
      if (c.backend == device_id) t.checks.push_back(std::move(c));
    }
  }
  if (fs::exists(dir / kStarted)) t.started = read_child_file((dir / kStarted).string());
  return t;
}

std::vector<std::string> child_args(const RunCommand& cmd, const std::string& device_id, const fs::path& dir) {
  const CommonOptions& c = cmd.common;
  std::vector<std::string> a = {"gradparity",
                                "run-child",
                                "--backend",
                                device_id,
                                "--seed",
                                std::to_string(c.seed),
                                "--probes",
                                std::to_string(c.numerical.reference_probes),
                                "--backend-probes",
                                std::to_string(c.numerical.backend_probes),
                                "--sample-elements",
                                std::to_string(c.sample.random),
                                "--complete-elements",
                                std::to_string(c.sample.complete_elements),
                                "--streamed-complete-elements",
                                std::to_string(c.sample.streamed_complete_elements),
                                "--cases",
                                (dir / "cases").string(),
                                "--out-dir",
                                dir.string()};
  if (!c.backend.cache_dir.empty()) a.insert(a.end(), {"--cache-dir", c.backend.cache_dir});
  if (c.backend.vulkan_validation) a.push_back("--vk-validation");
  if (!c.reference_cache) a.push_back("--no-reference-cache");
  if (!cmd.progress) a.push_back("--no-progress");
  append_cases_file_args(a);
  return a;
}

// How many files the child's folder holds and what it started last: a change is progress.
std::string progress_mark(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
  return std::to_string(n) + "\n" + read_child_file((dir / kStarted).string());
}

}  // namespace

std::vector<CheckResult> run_device_in_child(const RunCommand& cmd, const SelectedDevice& device,
                                             const std::vector<const Subject*>& subjects) {
  std::vector<std::string> ids;
  ids.reserve(subjects.size());
  for (const Subject* s : subjects) ids.push_back(s->id());
  auto died_in = [&](const std::string& id, const std::string& why) {
    CheckResult r = find_subject(id)->blank(device.id, cmd.common.seed);
    r.verdict = Verdict::error;
    r.reason_kind = ReasonKind::device_error;
    r.reason = why;
    return r;
  };

  if (cmd.progress)
    fmt::print(stderr, "{}: its {} cases and models run in a child process (a crash is one case's ERROR)\n", device.id,
               ids.size());
  std::vector<CheckResult> out;
  std::size_t first = 0;  // ids[first..] have not run yet
  while (first < ids.size() && !InterruptGuard::flag().load()) {
    const fs::path dir = make_temp_path("run-child", true);
    {
      std::string list;
      for (std::size_t i = first; i < ids.size(); ++i) list += ids[i] + "\n";
      write_file_atomically(dir / "cases", list);
    }
    std::string mark = progress_mark(dir);
    auto last_change = std::chrono::steady_clock::now();
    double next_look = 1;
    const ChildExit exit = run_self(child_args(cmd, device.id, dir), [&](double elapsed) -> std::string {
      if (elapsed < next_look) return "";
      next_look = elapsed + 1;
      const auto now = std::chrono::steady_clock::now();
      if (std::string m = progress_mark(dir); m != mark) {
        mark = m;
        last_change = now;
      } else if (std::chrono::duration<double>(now - last_change).count() > cmd.case_timeout) {
        return fmt::format("no progress for {:g} s (--case-timeout; killed)", cmd.case_timeout);
      }
      return "";
    });
    Trace trace;
    std::string unreadable;
    try {
      trace = read_trace(dir, device.id);
    } catch (const std::exception& e) {
      unreadable = e.what();
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    for (auto& c : trace.checks) out.push_back(std::move(c));
    if (InterruptGuard::flag().load()) break;

    const std::string how = exit.describe() + (unreadable.empty() ? "" : "; its trace: " + unreadable);
    std::size_t next = first;
    while (next < ids.size() && trace.done.count(ids[next])) ++next;
    if (next == ids.size()) break;
    if (exit.clean() && unreadable.empty()) {  // cannot happen unless the child lost cases
      for (; next < ids.size(); ++next) out.push_back(died_in(ids[next], "the child process finished without it"));
      break;
    }
    if (trace.started != ids[next]) {
      if (next > first) {  // it died between cases: nothing to blame, the next child goes on
        fmt::print(stderr, "{}: the child process ended with {} after {}; the run goes on in a new process\n",
                   device.id, how, ids[next - 1]);
        first = next;
        continue;
      }
      for (; next < ids.size(); ++next)  // it died before its first case: a new one would too
        out.push_back(died_in(ids[next], "the child process running " + device.id + " ended (" + how +
                                             ") before this case; no further child was started"));
      break;
    }
    out.push_back(died_in(ids[next], "crashed: the child process running " + device.id + " ended with " + how +
                                         " during this case; the run went on in a new process"));
    fmt::print(stderr, "{}: the child process ended with {} during {}; the run goes on in a new process\n", device.id,
               how, ids[next]);
    first = next + 1;
  }
  return out;
}

// The child's side: the ids of --cases on the one --backend, one at a time, traced in --out-dir.
int run_child_command(const RunCommand& cmd) {
  if (cmd.common.backends.size() != 1 || cmd.child_cases.empty() || cmd.child_out.empty())
    throw UsageError("run-child needs exactly one --backend, --cases and --out-dir");
  std::vector<const Subject*> subjects;
  for (const std::string& id : read_id_list(cmd.child_cases)) {
    const Subject* s = find_subject(id);
    if (!s) throw UsageError("run-child: unknown case id '" + id + "' in " + cmd.child_cases);
    subjects.push_back(s);
  }
  std::vector<SelectedDevice> devices = select_devices(cmd.common.backends, cmd.common.backend);
  if (devices.size() != 1) throw UsageError("run-child: '" + cmd.common.backends.front() + "' is not one device");

  const fs::path dir = cmd.child_out;
  std::size_t finished = 0;
  RunOptions opts;
  const std::unique_ptr<ReferenceCache> cache = open_reference_cache(cmd.common);
  opts.context = {cmd.common.seed, cmd.common.numerical, cache.get(), cmd.common.sample};
  opts.reference_checks = false;  // the parent's run has them
  opts.oracle_check = false;
  opts.progress = cmd.progress;
  opts.jobs = 1;  // one case at a time: a crash names its case
  opts.on_item_start = [&](const std::string& id) { write_file_atomically(dir / kStarted, id); };
  opts.on_item_done = [&](const std::string&, const std::vector<CheckResult>& checks) {
    RunReport r;
    r.checks = checks;
    write_file_atomically(dir / fmt::format("done-{:06}.json", finished++), report_to_json_text(r));
  };
  run_parity(subjects, devices, opts);
  return 0;
}

}  // namespace gp::cli
