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

// `gradparity stress` (and its hidden per-mode child, `stress-child`).
struct StressCommand {
  CommonOptions common;
  Selection selection;             // --op, --dtype, --filter as in run
  std::vector<std::string> modes;  // --mode: shared, per-thread, churn (default: all)
  int threads = 0;                 // --threads; 0 = max(4, 2 x cores)
  std::int64_t iterations = 50;    // --iterations per thread
  double duration = 0;             // --duration SECONDS per mode (instead of iterations)
  double mode_timeout = 0;         // --mode-timeout SECONDS per child; 0 = derived
  std::string report_dir;          // --report-dir
  std::string inject;              // --inject FAULT (positive control), "" = none
  bool progress = true;
  std::string child_out;  // stress-child only: where the child writes its result
};

// `gradparity oracle`: the reference against 166-bit MPFR evaluation of its own formulas.
struct OracleCommand {
  Selection selection;       // --op, --dtype, --filter as in run
  std::uint64_t seed = 1;    // --seed
  std::int64_t sample = 32;  // --sample: elements per elementwise case (rows, matrix lines: / 8)
  bool all = false;          // --all: every element, no sampling
  int jobs = 0;              // --jobs; 0 = every core
  bool progress = true;
};

int list_command(const std::string& what, const BackendOptions& opts);
int run_command(const RunCommand& cmd);
int repro_command(const OneCaseCommand& cmd);
int dump_command(const OneCaseCommand& cmd);
int stress_command(const StressCommand& cmd);
int stress_child_command(const StressCommand& cmd);  // one device x mode, in this process
int oracle_command(const OracleCommand& cmd);

// Helpers shared by the commands.
RunMetadata make_metadata(const CommonOptions& c);
const Case& require_case(const std::string& id);  // UsageError if unknown
// Writes DIR/parity.json and DIR/parity.md (creating DIR) and says where.
void write_reports(const std::string& dir, const RunReport& report);

}  // namespace gp::cli
