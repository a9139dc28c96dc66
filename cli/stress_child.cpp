#include "cli/stress_child.hpp"

#include <filesystem>

#include "cli/cases_file.hpp"
#include "cli/child_process.hpp"
#include "core/error.hpp"
#include "harness/audit/in_flight.hpp"
#include "harness/audit/stress.hpp"
#include "reports/file_io.hpp"
#include "reports/json_report.hpp"

namespace gp::cli {

namespace {

// Beside the child's result: the ids it was running when a signal ended it (in_flight.hpp).
constexpr const char* kInFlightSuffix = ".in-flight";

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// The child's command line: the same selection and loop options, one device, one mode.
std::vector<std::string> child_args(const StressCommand& cmd, const std::string& device_id, const std::string& mode,
                                    const std::string& out_file) {
  std::vector<std::string> a = {"gradparity",   "stress-child",
                                "--backend",    device_id,
                                "--mode",       mode,
                                "--out",        out_file,
                                "--seed",       std::to_string(cmd.common.seed),
                                "--iterations", std::to_string(cmd.iterations),
                                "--duration",   std::to_string(cmd.duration)};
  if (cmd.threads > 0) a.insert(a.end(), {"--threads", std::to_string(cmd.threads)});
  if (!cmd.selection.ops.empty()) a.insert(a.end(), {"--op", join(cmd.selection.ops)});
  if (!cmd.selection.dtypes.empty()) a.insert(a.end(), {"--dtype", join(cmd.selection.dtypes)});
  if (!cmd.selection.filter.empty()) a.insert(a.end(), {"--filter", cmd.selection.filter});
  if (cmd.selection.scale != Scale::small) a.insert(a.end(), {"--scale", scale_name(cmd.selection.scale)});
  if (!cmd.common.backend.cache_dir.empty()) a.insert(a.end(), {"--cache-dir", cmd.common.backend.cache_dir});
  if (!cmd.inject.empty()) a.insert(a.end(), {"--inject", cmd.inject});
  if (!cmd.progress) a.push_back("--no-progress");
  append_cases_file_args(a);
  return a;
}

}  // namespace

StressResult run_mode_in_child(const StressCommand& cmd, const std::string& device_id, const std::string& mode,
                               double timeout_s) {
  StressResult r;
  r.backend = device_id;
  r.mode = mode;
  r.inject = cmd.inject;
  const std::string out_file = make_temp_path("stress", false);
  const ChildExit exit = run_self(child_args(cmd, device_id, mode, out_file), [&](double elapsed) {
    return elapsed > timeout_s ? "timeout after " + std::to_string(static_cast<int>(timeout_s)) + " s (killed)"
                               : std::string();
  });

  bool have_result = false;
  try {
    RunReport child = read_parity_json(out_file);
    if (!child.stress.empty()) {
      r = child.stress.front();
      have_result = true;
    }
  } catch (const std::exception&) {
    // no or partial result: the child died before writing it
  }
  const std::string running = read_in_flight(out_file + kInFlightSuffix);
  std::error_code ec;
  std::filesystem::remove(out_file, ec);
  std::filesystem::remove(out_file + kInFlightSuffix, ec);

  if (exit.signal != 0) {
    r.crash = exit.describe() + (have_result && exit.killed.empty() ? " after writing its result" : "") +
              (running.empty() ? "" : " while running " + running);
  } else if (!have_result) {
    r.crash = exit.describe() + " without a result";
  }
  if (!have_result) r.time_s = exit.seconds;
  return r;
}

int stress_child_command(const StressCommand& cmd) {
  if (cmd.common.backends.size() != 1 || cmd.modes.size() != 1 || cmd.child_out.empty())
    throw UsageError("stress-child needs exactly one --backend, one --mode and --out");
  const auto mode = parse_stress_mode(cmd.modes.front());
  if (!mode) throw UsageError("unknown stress mode '" + cmd.modes.front() + "'");
  BackendOptions bopts = cmd.common.backend;
  bopts.vulkan_validation = true;  // threading + synchronization checks during every stress run
  std::vector<SelectedDevice> devices = select_devices(cmd.common.backends, bopts);
  if (devices.size() != 1) throw UsageError("stress-child: '" + cmd.common.backends.front() + "' is not one device");

  StressOptions opts;
  if (cmd.threads > 0) opts.threads = cmd.threads;
  opts.iterations = cmd.iterations;
  opts.duration_s = cmd.duration;
  opts.seed = cmd.common.seed;
  opts.progress = cmd.progress;
  if (!cmd.inject.empty() && !find_fault(cmd.inject).fault) throw UsageError("unknown fault '" + cmd.inject + "'");
  opts.inject = cmd.inject;
  note_in_flight_on_crash(cmd.child_out + kInFlightSuffix);
  RunReport report;
  report.stress.push_back(run_stress_mode(devices.front(), select_subjects(cmd.selection), *mode, opts));
  write_parity_json(cmd.child_out, report);
  return 0;
}

}  // namespace gp::cli
