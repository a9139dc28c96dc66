#include "harness/audit/in_flight.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <fstream>
#include <set>

#include "core/error.hpp"

namespace gp {

namespace {

// More slots than stress ever runs threads; two threads that share a slot (modulo) lose one id
// from the note, never memory safety.
constexpr int kSlots = 1024;
std::array<std::atomic<const char*>, kSlots> g_slots{};
std::atomic<int> g_fd{-1};
constexpr std::array kFatal = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

std::atomic<const char*>& slot_of(int slot) { return g_slots[static_cast<std::size_t>(slot % kSlots)]; }

void write_all(int fd, const char* text, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, text, n);
    if (w <= 0) return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}

extern "C" void on_fatal_signal(int sig) {
  if (const int fd = g_fd.exchange(-1); fd >= 0) {
    for (auto& s : g_slots)
      if (const char* id = s.load()) {
        write_all(fd, id, std::strlen(id));
        write_all(fd, "\n", 1);
      }
    ::close(fd);
  }
  std::signal(sig, SIG_DFL);  // the default action ends the process with this signal
  std::raise(sig);
}

}  // namespace

InFlight::InFlight(int slot, const std::string& id) : slot_(slot) { slot_of(slot_).store(id.c_str()); }

InFlight::~InFlight() { slot_of(slot_).store(nullptr); }

void note_in_flight_on_crash(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("open(" + path + ") for the stress child's crash note: " + std::strerror(errno));
  if (const int old = g_fd.exchange(fd); old >= 0) ::close(old);
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  for (const int sig : kFatal) sigaction(sig, &action, nullptr);
}

std::string read_in_flight(const std::string& path) {
  std::ifstream in(path);
  std::set<std::string> seen;
  std::string line, joined;
  while (std::getline(in, line))
    if (!line.empty() && seen.insert(line).second) joined += (joined.empty() ? "" : ", ") + line;
  return joined;
}

}  // namespace gp
