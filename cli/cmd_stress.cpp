// `gradparity stress`: every selected device x mode in its own child process, then the stress
// section of parity.json / parity.md. Exit code 1 when any mode failed (for a positive control
// run with --inject, exit code 1 means the fault was detected).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>

#include "cli/commands.hpp"
#include "cli/stress_child.hpp"
#include "core/error.hpp"
#include "harness/audit/stress.hpp"
#include "reports/junit_report.hpp"

namespace gp::cli {

namespace {

std::vector<std::string> checked_modes(const std::vector<std::string>& wanted) {
  if (wanted.empty()) {
    std::vector<std::string> all;
    for (StressMode m : kAllStressModes) all.emplace_back(stress_mode_name(m));
    return all;
  }
  for (const auto& m : wanted)
    if (!parse_stress_mode(m))
      throw UsageError("unknown stress mode '" + m + "'; valid modes: shared, per-thread, churn");
  return wanted;
}

// The backend an --inject fault lives in ("" for none); a usage error for an unknown one.
std::string checked_fault(const std::string& name) {
  if (name.empty()) return "";
  const FoundFault f = find_fault(name);
  if (!f.fault) {
    std::string known;
    for (const auto& n : fault_names()) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("unknown fault '" + name +
                     "'; faults of the backends in this binary: " + (known.empty() ? "none" : known));
  }
  return f.backend;
}

// Generous enough for a loaded 2-core machine, short enough that a hang does not stall CI.
double mode_timeout(const StressCommand& cmd) {
  if (cmd.mode_timeout > 0) return cmd.mode_timeout;
  return cmd.duration > 0 ? cmd.duration + 120 : 300;
}

std::string result_line(const StressResult& r) {
  std::string line = fmt::format("{} calls, {} mismatches, {} NaN/Inf, {} errors, {} validation messages", r.calls,
                                 r.mismatches, r.nonfinite, r.errors, r.validation_count);
  if (!r.crash.empty()) line += ", CRASH: " + r.crash;
  return line + fmt::format(" ({:.1f} s) {}", r.time_s, r.failed() ? "FAIL" : "clean");
}

}  // namespace

int stress_command(const StressCommand& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> modes = checked_modes(cmd.modes);
  const std::string fault_backend = checked_fault(cmd.inject);
  const std::vector<const Subject*> subjects = select_subjects(cmd.selection);  // validates the selection
  if (subjects.empty()) throw UsageError("the selection matches no case");
  std::vector<SelectedDevice> devices = select_devices(cmd.common.backends, cmd.common.backend);
  if (!fault_backend.empty()) {
    // A fault lives in one backend: the other devices would only repeat a normal run.
    std::erase_if(devices, [&](const SelectedDevice& d) { return d.entry.info.backend != fault_backend; });
    if (devices.empty())
      throw UsageError("--inject " + cmd.inject + " needs a " + fault_backend + " device among --backend");
  }

  if (!cmd.report_dir.empty()) require_writable_dir(cmd.report_dir, "--report-dir");
  if (!cmd.junit.empty()) require_writable_file(cmd.junit, "--junit");

  RunReport report;
  report.meta = make_metadata(cmd.common);
  for (const auto& d : devices) report.meta.devices.push_back(summarize_device(d));
  const int threads = cmd.threads > 0 ? cmd.threads : default_stress_threads();
  const std::string amount =
      cmd.duration > 0 ? fmt::format("{} s", cmd.duration) : fmt::format("{} iterations", cmd.iterations);
  fmt::print("stress: {} cases and models, {} threads x {}{}\n", subjects.size(), threads, amount,
             cmd.inject.empty() ? "" : ", injected fault " + cmd.inject);
  std::fflush(stdout);
  for (const auto& d : devices) {
    for (const auto& mode : modes) {
      if (!d.entry.create) {
        fmt::print("  {:<10} {:<10} SKIP: {}\n", d.id, mode, d.entry.unavailable);
        std::fflush(stdout);
        continue;  // like a parity run: an absent device is a skip, not a failure
      }
      StressResult r = run_mode_in_child(cmd, d.id, mode, mode_timeout(cmd));
      if (r.device.empty()) r.device = d.entry.info.name;
      fmt::print("  {:<10} {:<10} {}\n", d.id, mode, result_line(r));
      for (const auto& n : r.notes) fmt::print("      {}\n", n);
      for (std::size_t i = 0; i < r.validation_messages.size() && i < 3; ++i)
        fmt::print("      validation: {}\n", r.validation_messages[i]);
      std::fflush(stdout);
      report.stress.push_back(std::move(r));
    }
  }
  report.meta.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!cmd.report_dir.empty()) write_reports(cmd.report_dir, report);
  if (!cmd.junit.empty()) {
    write_junit(cmd.junit, report);
    fmt::print("junit: {}\n", cmd.junit);
  }
  const auto failed = std::count_if(report.stress.begin(), report.stress.end(), [](auto& r) { return r.failed(); });
  fmt::print("stress: {} of {} device x mode runs failed in {:.1f} s\n", failed, report.stress.size(),
             report.meta.wall_seconds);
  return failed > 0 ? 1 : 0;
}

}  // namespace gp::cli
