// parity.md's speed section: the large tier's calls (docs/scale.md, "Speed"), one row per case,
// device and call (a call's gradient checks share it), with GB/s and GFLOP/s from the catalog's
// bytes and operations, and the case's memory. Bounded by the large cases x devices x 2, not by
// the checks.
#include <fmt/format.h>

#include <iterator>
#include <set>
#include <tuple>

#include "core/memory_size.hpp"
#include "reports/markdown_sections.hpp"

namespace gp::md {

namespace {

std::string rate(double per_s, std::int64_t amount) { return amount > 0 ? g3(per_s) : std::string("—"); }
std::string memory(std::int64_t bytes) { return bytes > 0 ? memory_text(bytes) : std::string("—"); }

}  // namespace

void append_speed(std::string& out, const RunReport& report) {
  std::set<std::tuple<std::string, std::string, Direction>> seen;
  std::string rows;
  auto o = std::back_inserter(rows);
  for (const CheckResult& c : report.checks) {
    const CallSpeed& s = c.speed;
    if (!s.measured() || !seen.insert({c.case_id, c.backend, c.direction}).second) continue;
    fmt::format_to(o, "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", code(c.case_id), code(c.backend),
                   direction_name(c.direction), g3(s.seconds * 1e3), s.device_timer ? "device" : "host",
                   rate(s.gb_per_s(), s.bytes), rate(s.gflop_per_s(), s.flops), memory(c.memory.device_bytes),
                   memory(c.memory.host_bytes));
  }
  if (rows.empty()) return;
  out +=
      "## Speed (large tier)\n\n"
      "Each call once, between two synchronisations of the queue, timed by the device's own timers (OpenCL "
      "profiling events, Vulkan timestamps) or by the host's clock around the call. GB/s counts each tensor the "
      "call must read or write once (a lower bound of its traffic); GFLOP/s counts the contractions' 2mnk "
      "(docs/scale.md, \"Speed\"). Memory is the case's: its device buffers, and an estimate at or above its host "
      "copies on that device (inputs, cotangent, results, the complete checks' references; docs/scale.md, "
      "\"Memory\").\n\n"
      "| Case | Backend | Call | ms | Timer | GB/s | GFLOP/s | Device buffers | Host copies |\n"
      "|---|---|---|---:|---|---:|---:|---:|---:|\n";
  out += rows;
  out += "\n";
}

}  // namespace gp::md
