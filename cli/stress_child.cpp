#include "cli/stress_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/error.hpp"
#include "harness/stress.hpp"
#include "reports/file_io.hpp"
#include "reports/json_report.hpp"

namespace gp::cli {

namespace {

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
  if (!cmd.common.backend.cache_dir.empty()) a.insert(a.end(), {"--cache-dir", cmd.common.backend.cache_dir});
  if (!cmd.inject.empty()) a.insert(a.end(), {"--inject", cmd.inject});
  if (!cmd.progress) a.push_back("--no-progress");
  return a;
}

std::string self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("stress: cannot find the gradparity executable (/proc/self/exe): " + ec.message());
  return p.string();
}

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return "signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
}

// A unique, empty result file for the child; removed by the caller.
std::string make_result_file() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/gradparity-stress-XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) throw Error("stress: cannot create a temporary file " + pattern + ": " + std::strerror(errno));
  close(fd);
  return pattern;
}

}  // namespace

StressResult run_mode_in_child(const StressCommand& cmd, const std::string& device_id, const std::string& mode,
                               double timeout_s) {
  StressResult r;
  r.backend = device_id;
  r.mode = mode;
  r.inject = cmd.inject;
  const std::string out_file = make_result_file();
  const std::string exe = self_executable();
  const std::vector<std::string> args = child_args(cmd, device_id, mode, out_file);
  // argv is built before fork: between fork and exec only async-signal-safe calls are allowed
  // (driver threads of the parent may hold locks).
  std::vector<char*> argv;
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw Error(std::string("stress: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed parent leaves no stress child behind
    if (getppid() != parent) _exit(127);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!timed_out && elapsed > timeout_s) {
      kill(pid, SIGKILL);
      timed_out = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

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
  std::error_code ec;
  std::filesystem::remove(out_file, ec);

  if (timed_out) {
    r.crash = "timeout after " + std::to_string(static_cast<int>(timeout_s)) + " s (killed)";
  } else if (WIFSIGNALED(status)) {
    r.crash = signal_text(WTERMSIG(status)) + (have_result ? " after writing its result" : "");
  } else if (WIFEXITED(status) && !have_result) {
    r.crash = "exit code " + std::to_string(WEXITSTATUS(status)) + " without a result";
  }
  if (!have_result) r.time_s = elapsed;
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
  RunReport report;
  report.stress.push_back(run_stress_mode(devices.front(), select_cases(cmd.selection), *mode, opts));
  write_parity_json(cmd.child_out, report);
  return 0;
}

}  // namespace gp::cli
