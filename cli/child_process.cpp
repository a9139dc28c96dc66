#include "cli/child_process.hpp"

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/error.hpp"

namespace gp::cli {

namespace {

std::string self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the gradparity executable (/proc/self/exe): " + ec.message());
  return p.string();
}

}  // namespace

std::string ChildExit::describe() const {
  if (!killed.empty()) return killed;
  if (signal != 0) {
    const char* abbrev = sigabbrev_np(signal);
    return "signal " + std::to_string(signal) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "exit code " + std::to_string(exit_code);
}

ChildExit run_self(const std::vector<std::string>& args, const std::function<std::string(double)>& kill_reason) {
  const std::string exe = self_executable();
  // argv is built before fork: between fork and exec only async-signal-safe calls are allowed
  // (driver threads of the parent may hold locks).
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);

  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed parent leaves no child behind
    if (getppid() != parent) _exit(127);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  ChildExit result;
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (result.killed.empty()) {
      result.killed = kill_reason(elapsed());
      if (!result.killed.empty()) kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  result.seconds = elapsed();
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

std::string make_temp_path(const std::string& stem, bool folder) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/gradparity-" + stem + "-XXXXXX";
  if (folder) {
    if (!mkdtemp(pattern.data()))
      throw Error("cannot create a temporary folder " + pattern + ": " + std::strerror(errno));
    return pattern;
  }
  const int fd = mkstemp(pattern.data());
  if (fd < 0) throw Error("cannot create a temporary file " + pattern + ": " + std::strerror(errno));
  close(fd);
  return pattern;
}

std::vector<std::string> read_id_list(const std::string& path) {
  std::vector<std::string> ids;
  std::ifstream in(path);
  for (std::string id; std::getline(in, id);)
    if (!id.empty()) ids.push_back(id);
  return ids;
}

std::string read_child_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace gp::cli
