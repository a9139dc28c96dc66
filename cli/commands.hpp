// The `gradparity` sub-commands. Each returns the process exit code: 0 everything passed or
// skipped, 1 a check failed or errored, 2 a usage error (thrown as gp::UsageError).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "harness/checker.hpp"
#include "harness/runner.hpp"

namespace gp::cli {

struct CommonOptions {
  std::vector<std::string> backends;  // --backend
  std::uint64_t seed = 1;             // --seed
  BackendOptions backend;             // --cache-dir, --vk-validation
  NumericalOptions numerical;         // --probes
  std::string command_line;
};

struct RunCommand {
  CommonOptions common;
  Selection selection;
  std::string shard;       // --shard I/N
  std::string report_dir;  // --report-dir
  int jobs = 1;
  bool progress = true;
  bool reference_checks = true;
};

struct OneCaseCommand {
  CommonOptions common;
  std::string case_id;
  std::string out_dir;  // dump only
  int worst = 8;        // repro: how many worst elements to print
};

int list_command(const std::string& what, const BackendOptions& opts);
int run_command(const RunCommand& cmd);
int repro_command(const OneCaseCommand& cmd);
int dump_command(const OneCaseCommand& cmd);

// Helpers shared by the commands.
RunMetadata make_metadata(const CommonOptions& c);
const Case& require_case(const std::string& id);  // UsageError if unknown

}  // namespace gp::cli
