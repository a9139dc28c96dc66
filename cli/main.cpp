// gradparity: forward and gradient parity of ML ops across backends. See README.md.
#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "backends/registry.hpp"
#include "bench/presets.hpp"
#include "cli/cases_file.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/memory_size.hpp"

namespace {

// The devices, the inputs' seed and the caches: what every command that calls devices takes.
void add_devices(CLI::App* cmd, gp::cli::CommonOptions& c, bool backend_list) {
  auto* b = cmd->add_option("--backend,-b", c.backends,
                            backend_list ? "backends/devices: cpu, opencl, opencl:N, vulkan:NAME, plugin:PATH.so[:N], "
                                           "opencl-src:DIR[:N] (default: all)"
                                         : "the backend/device to use, e.g. cpu or opencl:0");
  b->delimiter(',');
  if (!backend_list) b->required();
  cmd->add_option("--seed,-s", c.seed, "input seed")->capture_default_str();
  cmd->add_option("--cache-dir", c.backend.cache_dir,
                  "cache folder: kernel binaries, pipelines and the reference's bounds (default "
                  "$GRADPARITY_CACHE_DIR, else ~/.cache/gradparity)");
  cmd->add_flag("--vk-validation", c.backend.vulkan_validation, "enable the Vulkan validation layer");
}

// add_devices, and what the checks take: the reference cache, probes, the large tier's sample.
void add_common(CLI::App* cmd, gp::cli::CommonOptions& c, bool backend_list) {
  add_devices(cmd, c, backend_list);
  cmd->add_flag("!--no-reference-cache", c.reference_cache,
                "compute every bound instead of reading it from the reference cache (CACHE_DIR/reference)");
  cmd->add_option("--probes", c.numerical.reference_probes, "directional probes per input on the reference")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--backend-probes", c.numerical.backend_probes, "directional probes per input on the backend")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  cmd->add_option("--sample-elements", c.sample.random,
                  "large tier: random elements compared exactly per tensor, besides every tile boundary")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30));
  cmd->add_option("--complete-elements", c.sample.complete_elements,
                  "large tier: the largest tensor of a reduction, row-wise or elementwise op whose every element is "
                  "compared (every line evaluated by the reference); 0: none")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 34));
  cmd->add_option("--streamed-complete-elements", c.sample.streamed_complete_elements,
                  "large tier: the largest elementwise tensor or reduction gradient above --complete-elements whose "
                  "every element is still compared, block by block on each device (nothing kept); 0: none")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 34));
}

// --op, --dtype and --filter: the case selection every multi-case command takes; --scale where
// the command runs large cases (run, stress, selftest with the large tier's own faults; the oracle
// reads a case's whole reference, which the large tier does not have).
void add_selection(CLI::App* cmd, gp::Selection& sel, bool scales = false) {
  if (scales)
    cmd->add_option_function<std::string>(
           "--scale", [&sel](const std::string& v) { sel.scale = gp::parse_scale(v); },
           "tiers: small (default; every element checked), large (production sizes, a sample of each tensor "
           "checked: docs/scale.md), all")
        ->check(CLI::IsMember({"small", "large", "all"}));
  cmd->add_option("--op", sel.ops, "ops (comma-separated)")->delimiter(',');
  cmd->add_option("--dtype", sel.dtypes, "dtypes: f16, bf16, f32, f64")->delimiter(',');
  cmd->add_option("--filter", sel.filter, "regex searched in case ids");
}

}  // namespace

int main(int argc, char** argv) {
  gp::keep_large_blocks_in_heap();
  CLI::App app{"gradparity: forward and gradient parity of ML ops on cpu, OpenCL and Vulkan backends"};
  app.require_subcommand(1);
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  std::string list_what = "all";
  gp::BackendOptions list_opts;
  auto* list = app.add_subcommand("list", "list ops, cases and backends with their devices");
  list->add_option(
          "what", list_what,
          "ops | cases | backends | all | catalog (Markdown, as docs/ops.md) | profiles (as docs/profiles.md) | "
          "specials (as docs/special-values.md)")
      ->capture_default_str();
  list->add_option("--cache-dir", list_opts.cache_dir, "cache folder");
  std::vector<std::string> list_backends;
  list->add_option("--backend,-b", list_backends, "list only these backends/devices, e.g. plugin:PATH.so")
      ->delimiter(',');

  gp::cli::RunCommand run;
  auto* run_cmd = app.add_subcommand("run", "run the parity suite and write reports");
  add_common(run_cmd, run.common, true);
  add_selection(run_cmd, run.selection, true);
  run_cmd->add_flag("!--no-isolate", run.isolate,
                    "run a plugin's cases in this process (by default a child process runs them, so that a crash is "
                    "one case's ERROR)");
  run_cmd->add_option("--case-timeout", run.case_timeout, "seconds a plugin's case may run before it is killed")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  auto* run_child = app.add_subcommand("run-child", "")->group("");  // hidden: a plugin device's cases, by `run`
  add_common(run_child, run.common, true);
  run_child->add_option("--cases", run.child_cases, "case ids, one per line")->required();
  run_child->add_option("--out-dir", run.child_out, "trace folder")->required();
  run_child->add_flag("!--no-progress", run.progress, "no progress output");
  run_cmd->add_option("--shard", run.shard, "run shard I of N (1-based), e.g. 2/4");
  run_cmd->add_option("--report-dir", run.report_dir,
                      "write DIR/parity.md (summary), parity-details.md, parity.json and parity.html");
  run_cmd->add_option("--junit", run.junit, "also write JUnit XML, one testcase per check, to FILE");
  run_cmd->add_option("--expect", run.expect,
                      "known failures (docs/ci.md): exit 0 while only these fail, 1 on any other failure or when "
                      "one of them passes");
  run_cmd->add_option("--write-expect", run.write_expect, "write this run's failures to FILE, for --expect");
  run_cmd->add_flag("--allow-unavailable", run.allow_unavailable,
                    "a backend named with --backend may be unavailable (its cases SKIP) instead of exit code 3");
  run_cmd->add_option("--jobs,-j", run.jobs, "worker threads over cases")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  run_cmd->add_flag("!--no-progress", run.progress, "no progress output");
  run_cmd->add_flag("!--no-reference-checks", run.reference_checks, "skip numerical checks of the reference");

  gp::cli::OneCaseCommand one;
  auto* repro = app.add_subcommand(
      "repro", "run one case, model or training run on one backend, verbosely, with the worst elements");
  repro->add_option("case", one.case_id, "case id, as printed by list or in a report")->required();
  add_common(repro, one.common, false);
  repro->add_option("--worst", one.worst, "worst elements to print")->capture_default_str();

  auto* dump = app.add_subcommand("dump", "write inputs, cotangent, outputs and gradients as .npy files");
  dump->add_option("case", one.case_id, "case id")->required();
  add_common(dump, one.common, false);
  dump->add_option("--out,-o", one.out_dir, "output folder")->required();

  gp::cli::StressCommand stress;
  auto* stress_cmd =
      app.add_subcommand("stress", "thread-safety stress: many threads, results bit-identical to a serial run");
  auto* stress_child = app.add_subcommand("stress-child", "")->group("");  // hidden: one mode, run by `stress`
  for (auto* cmd : {stress_cmd, stress_child}) {
    add_common(cmd, stress.common, true);
    add_selection(cmd, stress.selection, true);
    cmd->add_option("--mode", stress.modes, "shared, per-thread, churn (default: all)")->delimiter(',');
    cmd->add_option("--threads", stress.threads, "threads at once (default: max(4, 2 x cores))")
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--iterations", stress.iterations, "iterations per thread")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000000));
    cmd->add_option("--duration", stress.duration, "seconds per mode instead of --iterations")
        ->check(CLI::Range(0.0, 86400.0));
    std::string faults;
    for (const auto& f : gp::fault_names()) faults += (faults.empty() ? "" : ", ") + f;
    cmd->add_option("--inject", stress.inject,
                    "positive control, breaks thread-safety on purpose: " + (faults.empty() ? "none here" : faults));
    cmd->add_flag("!--no-progress", stress.progress, "no progress output");
  }
  stress_cmd->add_option("--report-dir", stress.report_dir, "write DIR/parity.md, parity.json and parity.html");
  stress_cmd->add_option("--junit", stress.junit, "also write JUnit XML, one testcase per device x mode, to FILE");
  stress_cmd->add_option("--mode-timeout", stress.mode_timeout, "seconds before a mode's child process is killed")
      ->check(CLI::Range(1.0, 86400.0));
  stress_child->add_option("--out", stress.child_out, "result file")->required();

  gp::cli::SelftestCommand self;
  auto* self_cmd = app.add_subcommand(
      "selftest",
      "the checks' detection power: cases (and models named with --op, one node's kernel at a time) run through "
      "injected faults; exit 1 if a must-catch one is missed");
  add_common(self_cmd, self.common, false);
  add_selection(self_cmd, self.selection, true);
  self_cmd->add_option("--sample", self.sample, "every k-th selected primitive case, N in all (0: all)")
      ->check(CLI::Range(0, 1000000));
  self_cmd
      ->add_option("--positions", self.positions,
                   "large tier: positions of the one perturbed element per case (a detection rate: docs/scale.md)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  self_cmd->add_option("--report-dir", self.report_dir, "write DIR/selftest.json");
  self_cmd->add_flag("!--no-progress", self.progress, "no progress output");
  gp::cli::MergeCommand merge;
  auto* merge_cmd = app.add_subcommand("merge", "merge the reports of shards (run --shard k/n) into one report");
  merge_cmd->add_option("shards", merge.inputs, "shard report folders (or their parity.json files)")->required();
  merge_cmd->add_option("--report-dir", merge.report_dir, "write the merged reports to DIR")->required();
  merge_cmd->add_option("--junit", merge.junit, "also write JUnit XML of the merged report to FILE");

  gp::cli::CompareCommand compare;
  auto* compare_cmd = app.add_subcommand(
      "compare",
      "margin and verdict drift between two runs; exit 1 when a margin rose past the limit or a check newly fails");
  compare_cmd->add_option("old", compare.old_path, "the earlier parity.json (or its folder)")->required();
  compare_cmd->add_option("new", compare.new_path, "the later parity.json (or its folder)")->required();
  compare_cmd
      ->add_option("--max-margin-increase", compare.max_margin_increase,
                   "largest tolerated rise of one check's margin (error / bound), e.g. 0.1 -> 0.7 is 0.6")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  compare_cmd->add_option("--rows", compare.rows, "entries shown per list")->capture_default_str();
  compare_cmd
      ->add_option("--significance", compare.significance,
                   "bench.json: the one-sided rank test's p-value below which a row's change counts")
      ->capture_default_str()
      ->check(CLI::Range(1e-12, 0.5));
  compare_cmd
      ->add_option("--min-slowdown", compare.min_slowdown,
                   "bench.json: the least growth of a row's median time that counts (0.15: 15 %)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));

  compare_cmd->add_flag("--absolute", compare.absolute,
                        "bench.json: judge rows as measured alone, not also relative to their device's overall shift");

  gp::cli::BenchCommand bench;
  auto* bench_cmd = app.add_subcommand(
      "bench", "time every selected case's forward and backward call on every device; exit 1 if a call errored");
  auto* bench_child = app.add_subcommand("bench-child", "")->group("");  // hidden: one device, run by `bench`
  for (auto* cmd : {bench_cmd, bench_child}) {
    add_devices(cmd, bench.common, true);
    cmd->add_option("--min-time", bench.min_time, "seconds of calls each repetition takes at least")
        ->capture_default_str()
        ->check(CLI::Range(1e-6, 3600.0));
    cmd->add_option("--repetitions", bench.repetitions, "repetitions per call (the median is reported)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    cmd->add_flag("!--no-probes", bench.probes,
                  "leave out the probes of each device's copy bandwidth and arithmetic rate");
    cmd->add_option("--preset", bench.preset,
                    "a named set of cases with a table of them per device, instead of --op/--dtype/--filter/--scale")
        ->check(CLI::IsMember(gp::bench_preset_names()));
  }
  add_selection(bench_cmd, bench.selection, true);
  bench_cmd->add_option("--report-dir", bench.report_dir, "write DIR/bench.md and DIR/bench.json");
  bench_cmd->add_option("--json", bench.json, "also write bench.json to FILE");
  bench_cmd->add_option("--parity", bench.parity,
                        "a parity.json (or its folder) of the same cases and devices: its verdicts, margins and "
                        "sensitivities beside the times");
  bench_cmd->add_flag("--check", bench.check,
                      "run the parity checks of the same selection first (reports in --report-dir) and show their "
                      "verdicts, margins and sensitivities beside the times");
  bench_cmd
      ->add_option("--processes", bench.processes,
                   "child processes that share each device's repetitions, one after another (1: in this process, "
                   "a plugin's device in one child)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  bench_cmd->add_flag("!--no-isolate", bench.isolate, "run a plugin's device in this process too");
  bench_cmd->add_option("--case-timeout", bench.case_timeout, "seconds a child may run one case's calls")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  bench_child->add_option("--cases", bench.child_cases, "case ids, one per line")->required();
  bench_child->add_option("--out", bench.json, "bench.json to write")->required();
  bench_child->add_option("--trace", bench.child_trace, "file naming the case in progress")->required();

  bench_cmd->add_flag("!--no-progress", bench.progress, "no line per timed call");

  gp::cli::OracleCommand oracle;
  auto* oracle_cmd =
      app.add_subcommand("oracle",
                         "check the long-double reference against its formulas in 166-bit MPFR (models named with "
                         "--op: sampled nodes of their graphs)");
  add_selection(oracle_cmd, oracle.selection);
  oracle_cmd->add_option("--seed,-s", oracle.seed, "input seed")->capture_default_str();
  auto* sample = oracle_cmd->add_option("--sample", oracle.sample, "elements per elementwise case (rows: N/8)")
                     ->capture_default_str();
  oracle_cmd->add_flag("--all", oracle.all, "every element of every case (exhaustive, slow)")->excludes(sample);
  oracle_cmd->add_option("--jobs,-j", oracle.jobs, "worker threads (default: every core)")->check(CLI::Range(1, 256));
  oracle_cmd->add_flag("!--no-progress", oracle.progress, "no progress output");

  gp::cli::HuntCommand hunt;
  auto* hunt_cmd = app.add_subcommand(
      "hunt",
      "search each selected op x dtype for the inputs that give its largest margin on each device; exit 1 on a "
      "finding (a kernel beyond its bound, a device error, a hole in the error model)");
  add_devices(hunt_cmd, hunt.common, true);
  add_selection(hunt_cmd, hunt.selection);
  auto* budget = hunt_cmd->add_option("--budget", hunt.budget, "seconds of search per op x dtype x device")
                     ->capture_default_str()
                     ->check(CLI::Range(0.0, 86400.0));
  hunt_cmd
      ->add_option("--evaluations", hunt.evaluations,
                   "evaluations per op x dtype x device instead of a time budget: the same seed gives the same hunt")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
      ->excludes(budget);
  hunt_cmd->add_option("--jobs,-j", hunt.jobs, "worker threads over op x dtype groups")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  hunt_cmd->add_option("--out,-o", hunt.out, "write each group's worst inputs as a cases file (--cases-file)");
  hunt_cmd->add_flag("!--no-progress", hunt.progress, "no progress output");

  std::vector<std::string> cases_files;
  for (auto* cmd :
       {run_cmd, run_child, repro, dump, stress_cmd, stress_child, self_cmd, bench_cmd, bench_child, oracle_cmd})
    cmd->add_option("--cases-file", cases_files,
                    "also the cases of this JSON file: catalog cases at given input values (docs/cases-files.md); "
                    "repeatable")
        ->check(CLI::ExistingFile);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "gradparity: {}\n", e.what());
    return 2;
  }
  run.common.command_line = one.common.command_line = stress.common.command_line = self.common.command_line =
      bench.common.command_line = hunt.common.command_line = command_line;
  try {
    gp::cli::load_cases_files(cases_files);
    if (list->parsed()) return gp::cli::list_command(list_what, list_opts, list_backends);
    if (run_cmd->parsed()) return gp::cli::run_command(run);
    if (run_child->parsed()) return gp::cli::run_child_command(run);
    if (repro->parsed()) return gp::cli::repro_command(one);
    if (dump->parsed()) return gp::cli::dump_command(one);
    if (stress_cmd->parsed()) return gp::cli::stress_command(stress);
    if (stress_child->parsed()) return gp::cli::stress_child_command(stress);
    if (self_cmd->parsed()) return gp::cli::selftest_command(self);
    if (merge_cmd->parsed()) return gp::cli::merge_command(merge);
    if (compare_cmd->parsed()) return gp::cli::compare_command(compare);
    if (oracle_cmd->parsed()) return gp::cli::oracle_command(oracle);
    if (hunt_cmd->parsed()) return gp::cli::hunt_command(hunt);
    if (bench_cmd->parsed()) return gp::cli::bench_command(bench);
    if (bench_child->parsed()) return gp::cli::bench_child_command(bench);
  } catch (const gp::UsageError& e) {
    fmt::print(stderr, "gradparity: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gradparity: error: {}\n", e.what());
    return 1;
  }
  return 2;
}
