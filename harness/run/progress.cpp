#include "harness/run/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace gp {

std::string phase_breakdown(const PhaseProfile& p, SubjectKind kind, double seconds) {
  std::string out;
  auto add = [&out](std::string_view name, double t) {
    if (t < 0.05) return;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.*s %.1f", out.empty() ? "" : ", ", static_cast<int>(name.size()), name.data(),
                  t);
    out += buf;
  };
  double named = 0;
  for (Phase ph : kAllPhases) {
    if (ph == Phase::other) continue;
    named += p.at(ph, kind);
    add(phase_name(ph), p.at(ph, kind));
  }
  add("other", seconds - named);
  return out;
}

Progress::Progress(bool on, std::size_t items) : on_(on), items_(items), tty_(isatty(STDERR_FILENO)) {}

void Progress::done_large(const std::string& id, double seconds, const std::string& phases) {
  char time[32];
  std::snprintf(time, sizeof time, "%.1f s", seconds);
  line(id, phases.empty() ? std::string(time) : std::string(time) + " (" + phases + ")");
}

void Progress::line(const std::string& id, const std::string& large) {
  const std::size_t n = ++done_;
  if (!on_) return;
  std::lock_guard lock(mutex_);
  if (!large.empty()) {
    std::fprintf(stderr, "%s[%zu/%zu] %s: %s\n", tty_ ? "\r\033[K" : "", n, items_, id.c_str(), large.c_str());
  } else if (tty_) {
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", n, items_, id.c_str());
    if (n == items_) std::fputc('\n', stderr);
  } else if (n == items_ || n % std::max<std::size_t>(1, items_ / 10) == 0) {
    std::fprintf(stderr, "[%zu/%zu] cases done\n", n, items_);
  }
}

}  // namespace gp
