// Synthetic reports for the report tests: every verdict, non-finite metrics, a seed above 2^53.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "results/result.hpp"

namespace gp {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr std::uint64_t kBigSeed = 18446744073709551557ull;  // above 2^53: doubles would round it

inline CheckResult make_check(std::string op, std::string backend, Direction dir, int input, Verdict verdict) {
  CheckResult c;
  c.op = op;
  c.family = "unary";
  c.case_id = op + "(shape=7x3,dtype=f32)";
  c.backend = std::move(backend);
  c.direction = dir;
  c.input = input;
  c.verdict = verdict;
  c.tolerance = "4 ulp * scale";
  c.metrics = {1.5e-7, 2.25e-7, 1.0, 3e-15, 1e-6, 0.15, 21, 0, {}};
  c.time_ms = 0.125;
  c.seed = kBigSeed;
  c.repro = "gradparity run --filter '" + c.case_id + "' --backend " + c.backend + " --seed 42";
  return c;
}

inline RunReport synthetic_report() {
  RunReport r;
  r.meta.version = "0.1.0";
  r.meta.build_type = "RelWithDebInfo";
  r.meta.build_options = {"GP_WITH_OPENCL=ON", "GP_WITH_VULKAN=OFF"};
  r.meta.started_at = "2024-05-01T12:00:00Z";
  r.meta.seed = kBigSeed;
  r.meta.command_line = "gradparity run --seed 42 | tee log";
  r.meta.shard = "1/2";
  r.meta.wall_seconds = 12.5;
  r.meta.reference_accuracy = {"MPFR 168-bit",     2, 96,  1, 2.5e-4, 0.01, "exp(shape=7,dtype=f64)",
                               "backward input 0", 3, 0.25};
  r.meta.devices = {{"cpu", "cpu", "Host CPU", "gradparity 0.1.0", "", true, "", {"avx2"}},
                    {"vulkan:0", "vulkan", "", "", "", false, "no Vulkan ICD found", {}}};

  CheckResult loosened = make_check("exp", "cpu", Direction::forward, -1, Verdict::pass);
  loosened.reason = "loosened to 8 ulp: glibc expf is 1 ulp off near overflow";

  CheckResult failed = make_check("exp", "opencl:0", Direction::backward, 0, Verdict::fail);
  failed.reason = "error 3.5x the bound at element 17";
  failed.metrics.margin = 3.5;
  failed.metrics.worst = {17, {0.5, -kInf}, 1.6487212707001282, 1.6487, 1e-6};

  CheckResult skipped = make_check("log", "opencl:0", Direction::forward, -1, Verdict::skip);
  skipped.reason = "f64 not supported by device";
  skipped.metrics = {};

  CheckResult mistrusted = make_check("log", "cpu", Direction::numerical_backend, 0, Verdict::mistrusted);
  mistrusted.reason = "finite differences cancel to zero";
  mistrusted.metrics.margin = kNaN;
  mistrusted.metrics.max_rel = kNaN;

  CheckResult errored = make_check("log", "cpu", Direction::backward, 0, Verdict::error);
  errored.reason = "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES";
  errored.metrics.margin = kInf;
  errored.metrics.max_ulp = -kInf;
  errored.metrics.nonfinite = 3;

  r.checks = {loosened, failed, skipped, mistrusted, errored};
  return r;
}

}  // namespace gp
