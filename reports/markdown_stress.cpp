// parity.md stress section: one row per device x mode, then what the failing rows saw.
#include <fmt/format.h>

#include <iterator>

#include "reports/markdown_sections.hpp"

namespace gp::md {

namespace {

std::string status_of(const StressResult& s) {
  if (!s.crash.empty()) return "💥 " + cell(s.crash);
  return s.failed() ? "❌ FAIL" : "✅ clean";
}

}  // namespace

void append_stress(std::string& out, const std::vector<StressResult>& stress) {
  if (stress.empty()) return;
  auto o = std::back_inserter(out);
  int failed = 0;
  for (const StressResult& s : stress) failed += s.failed() ? 1 : 0;
  fmt::format_to(o,
                 "## Thread-safety stress\n\n**{} of {} device × mode runs failed.** Every output and gradient "
                 "is compared bit for bit with a serial run of the same device.\n\n",
                 failed, stress.size());
  fmt::format_to(o,
                 "| Device | Mode | Injected fault | Threads | Iterations | Calls | Mismatches | NaN/Inf | Errors | "
                 "Validation msgs | Crash | Time (s) | Status |\n"
                 "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n");
  for (const StressResult& s : stress) {
    fmt::format_to(o, "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", code(s.backend),
                   cell(s.mode), s.inject.empty() ? "—" : code(s.inject), s.threads, s.iterations, s.calls,
                   s.mismatches, s.nonfinite, s.errors, s.validation_count, s.crash.empty() ? "—" : cell(s.crash),
                   g3(s.time_s), status_of(s));
  }
  out += "\n";
  for (const StressResult& s : stress) {
    if (!s.failed() || (s.notes.empty() && s.validation_messages.empty())) continue;
    fmt::format_to(o, "### {} {}{}\n\n", code(s.backend), cell(s.mode),
                   s.inject.empty() ? "" : " (injected " + code(s.inject) + ")");
    for (const std::string& n : s.notes) fmt::format_to(o, "- {}\n", cell(shorten(n, 300)));
    for (const std::string& m : s.validation_messages) fmt::format_to(o, "- validation: {}\n", cell(shorten(m, 300)));
    out += "\n";
  }
}

}  // namespace gp::md
