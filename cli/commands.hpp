// The `gradparity` sub-commands. Each returns the process exit code: 0 everything passed or
// skipped, 1 a check failed or errored (compare: drift over the limit), 2 a usage error (thrown
// as gp::UsageError), 3 a backend named with --backend is unavailable, 130 interrupted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/run/runner.hpp"

namespace gp::cli {

struct CommonOptions {
  std::vector<std::string> backends;  // --backend
  std::uint64_t seed = 1;             // --seed
  BackendOptions backend;             // --cache-dir, --vk-validation
  NumericalOptions numerical;         // --probes
  bool reference_cache = true;        // !--no-reference-cache
  SampleOptions sample;               // --sample-elements, --complete-elements: what the large tier compares
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
  std::string junit;               // --junit FILE
  std::string expect;              // --expect FILE: known failures (results/expectations.hpp)
  std::string write_expect;        // --write-expect FILE: this run's failures as such a file
  bool allow_unavailable = false;  // --allow-unavailable: a named backend may be unavailable
  bool isolate = true;             // !--no-isolate: run a plugin device's cases in a child process
  double case_timeout = 900;       // --case-timeout: seconds one isolated case may take
  std::string child_cases;         // run-child --cases FILE: the ids to run, one per line
  std::string child_out;           // run-child --out-dir DIR: where its trace goes
};

// `gradparity merge SHARD_DIR... --report-dir OUT`
struct MergeCommand {
  std::vector<std::string> inputs;  // shard report folders (or parity.json files)
  std::string report_dir;
  std::string junit;
};

// `gradparity compare OLD.json NEW.json`: two parity.json, or two bench.json.
struct CompareCommand {
  std::string old_path, new_path;  // parity.json / bench.json files or folders holding one
  double max_margin_increase = 0.25;
  std::size_t rows = 15;
  double significance = 1e-3;  // bench: the rank test's level (reports/bench_compare.hpp)
  double min_slowdown = 0.15;  // bench: the least growth of a median that counts
  bool absolute = false;       // bench: rows judged as measured alone, not also relative to their device's shift
};

// `gradparity bench`: every selected case's calls timed on every selected device (docs/bench.md).
struct BenchCommand {
  CommonOptions common;
  Selection selection;
  std::string preset;      // --preset NAME: its cases instead of a selection (bench/presets.hpp)
  double min_time = 0.01;  // --min-time: seconds of calls per repetition, at least
  int repetitions = 10;    // --repetitions
  std::string report_dir;  // --report-dir: DIR/bench.md and bench.json
  std::string json;        // --json FILE: bench.json alone
  std::string parity;      // --parity FILE|DIR: a parity.json whose checks give each row's accuracy
  bool check = false;      // --check: a parity run of the same selection first, for the accuracy
  bool progress = true;
  int processes = 5;          // --processes K: each device's repetitions shared by K child processes (docs/bench.md)
  bool isolate = true;        // !--no-isolate: a plugin's device runs in child processes
  double case_timeout = 300;  // --case-timeout: seconds without progress before a child is killed
  bool probes = true;         // !--no-probes: each device's copy bandwidth and arithmetic rate
  std::string child_cases;    // bench-child --cases FILE
  std::string child_trace;    // bench-child --trace FILE
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
  std::string junit;      // --junit FILE
  std::string child_out;  // stress-child only: where the child writes its result
};

// `gradparity selftest`: the checks' detection power, through a perturbing decorator.
struct SelftestCommand {
  CommonOptions common;
  Selection selection;     // --op, --dtype, --filter as in run
  int sample = 0;          // --sample N: every k-th selected case, N in all; 0 = all
  int positions = 8;       // --positions: large cases' element_perturbed trials
  std::string report_dir;  // --report-dir: DIR/selftest.json
  bool progress = true;
};

// `gradparity oracle`: the reference against 166-bit MPFR evaluation of its own formulas.
// `gradparity hunt`: the worst inputs of every selected op x dtype on each device (docs/hunt.md).
struct HuntCommand {
  CommonOptions common;
  Selection selection;
  double budget = 5;             // --budget: seconds per op x dtype x device
  std::int64_t evaluations = 0;  // --evaluations: per op x dtype x device instead of the budget
  int jobs = 1;                  // --jobs
  std::string out;               // --out FILE: each group's worst inputs as a cases file
  bool progress = true;
};

struct OracleCommand {
  Selection selection;       // --op, --dtype, --filter as in run
  std::uint64_t seed = 1;    // --seed
  std::int64_t sample = 32;  // --sample: elements per elementwise case (rows, matrix lines: / 8)
  bool all = false;          // --all: every element, no sampling
  int jobs = 0;              // --jobs; 0 = every core
  bool progress = true;
};

// `backends`: the --backend items whose devices `list backends` shows (default: every provider's).
int list_command(const std::string& what, const BackendOptions& opts, const std::vector<std::string>& backends);
// The math profiles' budgets as Markdown, docs/profiles.md (list_profiles.cpp).
void list_profiles();
// `list specials`: the IEEE special values every unary op must give (docs/special-values.md).
void list_specials();
int selftest_command(const SelftestCommand& cmd);
int run_command(const RunCommand& cmd);
int repro_command(const OneCaseCommand& cmd);
// What repro and dump share (cli/cmd_one_case.cpp): the one device --backend names (a usage
// error otherwise), a reference tensor as float64 for .npy, exit 1 when a check failed or erred.
SelectedDevice select_one_device(const OneCaseCommand& cmd);
HostTensor widen(const ref::RefTensor& t);
// The .npy files of one dump: written into `dir` (created), their names kept for its README.
struct DumpFolder {
  explicit DumpFolder(const std::string& dir);
  void put(const std::string& name, const HostTensor& t);
  // A device id as a file name prefix: "plugin:/opt/lib/libmine.so:0" gives "plugin_libmine.so_0"
  // (the whole path made nested folders).
  static std::string device_tag(const std::string& device_id);
  std::filesystem::path dir;
  std::vector<std::string> written;
};
int exit_code(const std::vector<CheckResult>& checks);
// A model's or a training run's repro and dump (cmd_one_composite.cpp).
int repro_composite(const OneCaseCommand& cmd, const Subject& subject);
// repro of a large-tier case: its sampled checks on the one device (docs/scale.md).
int repro_large(const OneCaseCommand& cmd, const Subject& subject);
int dump_composite(const OneCaseCommand& cmd, const Subject& subject);
int dump_command(const OneCaseCommand& cmd);
int stress_command(const StressCommand& cmd);
int stress_child_command(const StressCommand& cmd);  // one device x mode, in this process
int run_child_command(const RunCommand& cmd);        // a plugin device's cases, for `run` (isolated_run.hpp)
int merge_command(const MergeCommand& cmd);
int compare_command(const CompareCommand& cmd);
int bench_command(const BenchCommand& cmd);
int bench_child_command(const BenchCommand& cmd);  // one device's rounds, for `bench` (bench_children.hpp)
int oracle_command(const OracleCommand& cmd);
int hunt_command(const HuntCommand& cmd);

// Helpers shared by the commands.
RunMetadata make_metadata(const CommonOptions& c);
// The reference cache of --cache-dir (or the default folder), null with --no-reference-cache.
std::unique_ptr<ReferenceCache> open_reference_cache(const CommonOptions& c);
// "<N> cases, <hash of the case ids>": shards cut from different catalogs must not merge.
std::string catalog_version();
const Subject& require_subject(const std::string& id);  // UsageError if unknown
// Writes DIR/parity.json, parity.md, parity-details.md and parity.html (creating DIR) and says
// where (cli/report_files.cpp); records the time the other reports took in the profile that
// parity.json, written last, carries.
void write_reports(const std::string& dir, RunReport& report);
// Before a run: creates DIR and proves a file can be written there, or throws UsageError naming
// DIR and the reason, so a long run never ends in results it cannot save.
void require_writable_dir(const std::string& dir, std::string_view option);
// Likewise for a single output file (--junit FILE): its folder must take a new file.
void require_writable_file(const std::string& file, std::string_view option);
// Reads parity.json from a file or from a folder holding one; a missing, truncated, foreign or
// future-schema document is a UsageError of one line naming the file.
RunReport read_report_input(const std::string& path);
// Exit code 3: a backend named explicitly with --backend could not be used.
inline constexpr int kUnavailableExit = 3;

}  // namespace gp::cli
