#include <fmt/core.h>

#include <chrono>
#include <ctime>
#include <filesystem>

#include "build_info.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "reports/json_report.hpp"
#include "reports/markdown_report.hpp"

namespace gp::cli {

RunMetadata make_metadata(const CommonOptions& c) {
  RunMetadata m;
  m.version = build_info::kVersion;
  m.build_type = build_info::kBuildType;
  for (const char* o : build_info::kOptions) m.build_options.emplace_back(o);
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.started_at = buf;
  m.seed = c.seed;
  m.command_line = c.command_line;
  return m;
}

const Case& require_case(const std::string& id) {
  if (const Case* c = find_case(id)) return *c;
  // Suggest cases of the same op, which is what a mistyped id usually wants.
  std::string op = id.substr(0, id.find('('));
  std::string near;
  int shown = 0;
  for (const auto& c : all_cases()) {
    if (std::string(op_name(c.decl.op)) == op && shown < 5) {
      near += (shown++ ? ", " : "") + c.id;
    }
  }
  throw UsageError("unknown case '" + id + "'" + (near.empty() ? "" : "; cases of " + op + " include: " + near) +
                   " (gradparity list cases shows all " + std::to_string(all_cases().size()) + ")");
}

void write_reports(const std::string& dir_name, const RunReport& report) {
  std::filesystem::path dir(dir_name);
  std::filesystem::create_directories(dir);
  write_parity_json(dir / "parity.json", report);
  write_parity_md(dir / "parity.md", report);
  fmt::print("reports: {} and {}\n", (dir / "parity.json").string(), (dir / "parity.md").string());
}

}  // namespace gp::cli
