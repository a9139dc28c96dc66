#include "cli/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

namespace gp::cli {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler may only touch lock-free atomics");
struct sigaction g_old_int, g_old_term;

void on_signal(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
  // write(2) is async-signal-safe; stdio is not.
  constexpr char msg[] =
      "\ngradparity: stopping after the cases in progress; the report will be marked interrupted "
      "(signal again to quit at once)\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // the second signal gets the default action: the process ends
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool>& InterruptGuard::flag() { return g_stop; }
int InterruptGuard::signal_number() { return g_signal.load(); }

}  // namespace gp::cli
