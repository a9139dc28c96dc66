// Where reports go and where they come from: the report folder checked before a run, the four
// report files written after it, and parity.json read back for merge / compare.
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "reports/html_report.hpp"
#include "reports/json_report.hpp"
#include "reports/markdown_report.hpp"

namespace gp::cli {

namespace fs = std::filesystem;

void require_writable_dir(const std::string& dir, std::string_view option) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError(fmt::format("{} '{}' cannot be created: {}", option, dir, ec.message()));
  // Permissions, a read-only mount or a full quota only show when a file is written.
  const fs::path probe = fs::path(dir) / fmt::format(".gradparity-write-test-{}", ::getpid());
  {
    std::ofstream out(probe);
    out << "probe\n";
    out.flush();
    if (!out) throw UsageError(fmt::format("{} '{}' is not writable: {}", option, dir, std::strerror(errno)));
  }
  fs::remove(probe, ec);
}

void require_writable_file(const std::string& file, std::string_view option) {
  const fs::path p(file);
  if (fs::is_directory(p)) throw UsageError(fmt::format("{} '{}' is a folder; give a file name", option, file));
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  require_writable_dir(parent.string(), option);
}

void write_reports(const std::string& dir_name, RunReport& report) {
  fs::path dir(dir_name);
  fs::create_directories(dir);
  const auto t0 = std::chrono::steady_clock::now();
  write_parity_md(dir / "parity.md", report);  // and parity-details.md beside it
  write_parity_html(dir / "parity.html", report);
  // parity.json last, so that its profile holds what the other reports cost.
  if (!report.meta.profile.empty())
    report.meta.profile.reports_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_parity_json(dir / "parity.json", report);
  fmt::print("reports: {} ({}, {}, {})\n", (dir / "parity.md").string(), kDetailsFileName, "parity.json",
             "parity.html");
}

RunReport read_report_input(const std::string& path) {
  fs::path p(path);
  if (fs::is_directory(p)) p /= "parity.json";
  if (!fs::exists(p))
    throw UsageError(fmt::format("no report at '{}': expected a parity.json or a folder holding one", path));
  try {
    return read_parity_json(p);
  } catch (const Error& e) {
    // nlohmann's messages can run long; the first line names the file and what is wrong.
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    throw UsageError(fmt::format("cannot read report {}", what));
  }
}

}  // namespace gp::cli
