// The oracle check: the long-double reference against the same formulas in 166-bit MPFR
// (reference/oracle.hpp), element by element, measured in units of the tightest bound any backend
// gets there:  ratio_i = |ref_i - oracle_i| / min over the compiled-in backends' math profiles of
// bound_i (tolerance_for with the reference's error bounds under that profile). Layout ops are
// exact (bound 0): there the reference must equal the oracle. The reference is trusted as a
// yardstick when every ratio stays <= kOracleRatioLimit.
//
// Large cases are checked on sub-problems of the same case (oracle_sample.cpp): the same op,
// attributes, dtype and input values, restricted to sampled elements, rows or matrix rows/columns,
// so that an accumulation keeps its real length. README.md (harness/) describes the sampling.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cases/case.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/tolerance.hpp"
#include "reference/oracle.hpp"
#include "results/result.hpp"

namespace gp {

inline constexpr double kOracleRatioLimit = kReferenceShare;

// A device's math as the bounds see it: its profile and whether it may flush subnormals.
struct DeviceMath {
  const MathProfile* profile = nullptr;
  bool flush = false;
};

struct OracleOptions {
  std::int64_t sample = 32;  // elements per elementwise case; rows and matrix rows/cols: sample / 8
  bool all = false;          // every element of every case: no sampling (exhaustive mode)
  // Skip a case whose check needs a full evaluation of more input elements than this (losses,
  // layer_norm, broadcasts at 64x128), 0 = no limit: the light profile of `gradparity run`.
  std::int64_t max_full = 0;
  // The devices whose bounds the reference must stay well inside: a run's own devices (their
  // bounds are already computed); empty: every compiled-in provider's profile, without flushing.
  std::vector<DeviceMath> devices;
  // Where the cases' reference data, their bounds included, are read and kept (the bounds are the
  // ones the parity checks of the same case and seed compute): none, computed here.
  ReferenceCache* cache = nullptr;
};

// The profile `gradparity run` uses for its metadata: few points, no large full evaluations
// (those stay covered by ctest -L oracle and `gradparity oracle`).
inline OracleOptions light_oracle_options() {
  OracleOptions o;
  o.sample = 8;
  o.all = false;
  o.max_full = 1024;
  return o;
}

// One compared direction of one case: forward (input -1) or backward input k.
struct OracleDirection {
  Direction direction = Direction::forward;
  int input = -1;
  std::int64_t points = 0;  // elements compared
  double worst_ratio = 0;
  std::int64_t worst_index = -1;     // flat index in the full case's tensor
  std::vector<double> worst_inputs;  // elementwise ops: the inputs at that element
  double reference = 0, oracle = 0, bound = 0;
  // Largest |ref - oracle| / |oracle| (oracle != 0): informational, the reference's relative accuracy.
  double max_rel = 0;
};

struct OracleCaseResult {
  std::string case_id;
  std::string op_label;  // op name plus the attributes that change its formula, "gelu(approx=tanh)"
  std::vector<OracleDirection> directions;
  std::int64_t points = 0;
  double seconds = 0;
  std::string error;     // the reference or the oracle threw: the check fails
  bool skipped = false;  // over OracleOptions::max_full (a large-tier case: no element compared)
  // Large-tier cases: sampled elements not compared, their slices longer than the check takes
  // (harness/audit/oracle_large.hpp).
  std::int64_t points_skipped = 0;
  double worst_ratio() const;  // +inf on error
};

// The op plus the attributes that change its formula, "gelu(approx=tanh)" (not the geometry ones:
// axis, shape, slice), the oracle's rows are per such label.
std::string oracle_op_label(const Case& c);

// A sub-problem of a case and where its elements sit in the full case (-1: not compared here).
struct OracleSubProblem {
  OpCall call;
  std::vector<ref::RefTensor> inputs;
  ref::RefTensor dout;
  std::vector<std::int64_t> out_map;
  std::vector<std::vector<std::int64_t>> grad_map;  // per input
};
std::vector<OracleSubProblem> oracle_subproblems(const Case& c, const ReferenceData& data, const OracleOptions& opts,
                                                 std::uint64_t seed);

// `devices`, or when it is empty every compiled-in provider's math profile, without flushing.
std::vector<DeviceMath> devices_or_every_provider(std::vector<DeviceMath> devices);

// The tightest bound any backend gets at an element of the output (input -1) or of gradient k:
// the minimum over math profiles (default: every compiled-in provider's, without flushing).
class TightestBound {
 public:
  TightestBound(const Case& c, const ReferenceData& data, std::vector<DeviceMath> devices = {});
  double operator()(int input, std::size_t i) const;

 private:
  const ReferenceData& data_;
  std::vector<DeviceMath> devices_;
  std::vector<Tolerance> tolerances_;
};

// Folds the comparison of `reference` (the full case's tensor) with the oracle's values of one
// sub-problem into `into`; map[i] is the full index of the oracle's element i (-1: skip);
// bound(i) is the tightest bound at full index i.
void compare_with_oracle(const std::function<double(std::size_t)>& bound, const ref::RefTensor& reference,
                         const ref::OracleTensor& oracle, const std::vector<std::int64_t>& map, OracleDirection& into);

// The whole check of one case (reference prepared by the caller, as prepare_reference does).
OracleCaseResult oracle_check_case(const Case& c, const ReferenceData& data, std::uint64_t seed,
                                   const OracleOptions& opts = {});

// The same, read from the reference cache (run.reference_cache) when it holds it: keyed by the
// case, the seed, its inputs' bytes, the options and the devices' profiles (audit/oracle_cache).
// A result read back carries the read's time as its seconds.
OracleCaseResult cached_oracle_check_case(const Case& c, const ReferenceData& data, const RunContext& run,
                                          const OracleOptions& opts);

// The check on every case at `seed` (prepare_reference, then oracle_check_case) on `jobs` threads;
// `progress(done, total, result)` is called under a lock as cases finish. Results in case order.
std::vector<OracleCaseResult> run_oracle(
    const std::vector<const Case*>& cases, std::uint64_t seed, const OracleOptions& opts, int jobs,
    const std::function<void(std::size_t, std::size_t, const OracleCaseResult&)>& progress = {});

// Worst ratio per op label x direction over many cases.
struct OracleSummaryRow {
  std::string op_label, direction;
  std::int64_t cases = 0, points = 0;
  double worst_ratio = 0, max_rel = 0;
  std::string worst_case;
  OracleDirection worst;
};
std::vector<OracleSummaryRow> summarize_oracle(const std::vector<OracleCaseResult>& results);

// Run-level figure for the report metadata.
struct OracleTotals {
  std::int64_t cases = 0, skipped = 0, points = 0, points_skipped = 0;
  double worst_ratio = 0;
  std::string worst_case, worst_direction;
  std::int64_t worst_index = -1;
};
OracleTotals oracle_totals(const std::vector<OracleCaseResult>& results);
// The same, as the report's run metadata states it (cases that did not run are skipped); empty (no
// oracle named) when no case ran: a run of models or of the large tier alone.
ReferenceAccuracy reference_accuracy(const std::vector<OracleCaseResult>& results);

}  // namespace gp
