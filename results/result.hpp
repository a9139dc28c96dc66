// What one check produces: verdict, metrics, the worst element, the bound. The harness writes
// these, the reports read them; neither sees the other.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "results/profile.hpp"
#include "results/subject_kind.hpp"

namespace gp {

enum class Verdict : std::uint8_t { pass, fail, skip, mistrusted, error };
std::string_view verdict_name(Verdict v);  // "PASS", "FAIL", "SKIP", "MISTRUSTED", "ERROR"
// What the reports list as problems: FAIL, ERROR, MISTRUSTED.
inline bool is_problem(Verdict v) { return v == Verdict::fail || v == Verdict::error || v == Verdict::mistrusted; }

// Which comparison a check is.
//   forward                 backend forward vs reference forward
//   backward                backend VJP for input `input` vs reference VJP
//   numerical_reference     reference VJP vs finite differences of the reference (high precision)
//   numerical_backend       backend VJP vs finite differences of the backend's own forward
//   surrogate               straight-through op: backend VJP vs the declared surrogate gradient
//   node                    one node of a composite model run alone with the reference's inputs
// A composite's end-to-end checks are forward (output, loss) and backward (a leaf's gradient),
// its finite differences numerical_*; CheckResult::part says which tensor or node.
// forward_complete, backward_complete: the large tier's check of every element of a matrix
// product's output or gradient, beside the sampled one (docs/scale.md, "Every element").
// refusal: a call the catalog refuses, which the backend must refuse in supports() and never run
// (docs/invalid-calls.md).
enum class Direction : std::uint8_t {
  forward,
  backward,
  numerical_reference,
  numerical_backend,
  surrogate,
  node,
  forward_complete,
  backward_complete,
  refusal
};
std::string_view direction_name(Direction d);  // "forward", "backward", "numerical_reference", ...
// "forward", "backward input 1", "numerical_backend input 0"
std::string direction_label(Direction d, int input);

// Why a check did not judge (SKIP) or could not run (ERROR), as a type: the reports group and
// count by it, the exit code reads it; `CheckResult::reason` keeps the details in words.
enum class ReasonKind : std::uint8_t {
  none,              // PASS, and FAIL / MISTRUSTED, whose reason is their own detail
  covered,           // left out by design: another check of the same result detects more
  unsupported,       // the backend lacks the op, dtype or attribute
  unavailable,       // the device is not present on this machine
  device_failed,     // the device was found but could not be opened, or gave no queue
  device_lost,       // the device was lost earlier in this run
  reference_failed,  // the reference could not prepare the subject's data
  device_error,      // the backend threw while running the subject
};
std::string_view reason_kind_name(ReasonKind k);  // "covered", "unsupported", ...

struct CheckResult;
// What a check judges, in words: the composite's part where it has one, else direction_label.
std::string check_label(const CheckResult& r);

struct WorstElement {
  std::int64_t index = -1;     // flat index into the compared tensor
  std::vector<double> inputs;  // the inputs at that element where meaningful (elementwise)
  double expected = 0, got = 0, bound = 0;
};

struct Metrics {
  double max_abs = 0;          // max |got - expected|
  double max_rel = 0;          // max |got - expected| / |expected| over elements with expected != 0
  double max_ulp = 0;          // max ULP distance in the case dtype
  double nmse = 0;             // sum (got-expected)^2 / sum expected^2
  double bound = 0;            // the bound at the element with the largest margin
  double margin = 0;           // max over elements of the error beyond the rounding to the dtype / bound_i
  std::int64_t elements = 0;   // compared
  std::int64_t nonfinite = 0;  // NaN/Inf where the reference is finite
  WorstElement worst;
  // Sensitivity: the smallest uniform relative perturbation of the result, in ULPs of the dtype
  // at the element that would fail first, that makes this check FAIL (min over elements of the
  // slack bound_i - |error_i| in ULPs of the result there). NaN when no element can be
  // perturbed (all zero) or the check is not a comparison with a bound.
  double sensitivity_ulp = std::numeric_limits<double>::quiet_NaN();
  // At that element: the part of the bound the device's specification allows its library
  // functions (and a 16-bit store's rounding), in the same ULPs. sensitivity / max(1, budget) is
  // how close the check comes to what a conformant device may do.
  double budget_ulp = std::numeric_limits<double>::quiet_NaN();
  // The whole tensor's elements: more than `elements` where a sample was compared (the large tier).
  std::int64_t tensor_elements = 0;
  // A complete check's (Direction::forward_complete, backward_complete): its largest bound over
  // the tensor's largest |reference value|, so that any element off by more than this fraction
  // of the largest magnitude fails it. NaN elsewhere.
  double detection_threshold = std::numeric_limits<double>::quiet_NaN();
  // Compared elements whose bound reaches the magnitude of their reference value: the check
  // vouches for no significant digit of them (a backward from the forward's value where 1 - y^2
  // cancels, a sum that cancels).
  std::int64_t insignificant = 0;
};

// What a training run's check "at every step" (docs/training.md) adds: the first step whose value
// left its band (0: none); the loss's check also carries the curve, step by step, and the step
// map's amplification of an initial perturbation per step from step 2. Empty for other checks.
struct TrainingSteps {
  int first_out = 0;
  std::vector<double> loss, reference, bound;  // [step]: the device's, the reference's, the bound
  std::vector<double> amplification;           // [step - 2]
  bool empty() const { return first_out == 0 && loss.empty() && amplification.empty(); }
};

// How long the call a check judges took and what it moves (the large tier: docs/scale.md,
// "Speed"): the seconds from the device's own timers or the host's clock around the call; bytes
// and floating-point operations from the catalog (core/op_work.hpp). Not measured: seconds 0.
struct CallSpeed {
  double seconds = 0;
  bool device_timer = false;
  std::int64_t bytes = 0, flops = 0;
  bool measured() const { return seconds > 0; }
  double gb_per_s() const { return static_cast<double>(bytes) / seconds * 1e-9; }
  double gflop_per_s() const { return static_cast<double>(flops) / seconds * 1e-9; }
};

// What a large case holds while it runs (docs/scale.md, "Memory"): its device buffers, exact, and
// its host copies (inputs, cotangent, results, complete checks' references), an estimate at or
// above what was measured (harness/check/memory_fit.hpp). Zero elsewhere.
struct CaseMemory {
  std::int64_t device_bytes = 0, host_bytes = 0;
  bool stated() const { return device_bytes > 0 || host_bytes > 0; }
};

struct CheckResult {
  std::string case_id;
  std::string op;
  std::string family;
  std::string backend;  // device id: "cpu", "opencl:0"
  DType dtype = DType::f32;
  Direction direction = Direction::forward;
  int input = -1;  // input index for backward / numerical checks
  // What of a composite model the check judges ("loss", "grad W1", "node 4 linear (layer 2)
  // backward input 0"); empty for primitive cases.
  std::string part;
  SubjectKind subject = SubjectKind::primitive;
  Verdict verdict = Verdict::pass;
  ReasonKind reason_kind = ReasonKind::none;
  std::string reason;  // why FAIL / SKIP / MISTRUSTED / ERROR, in words
  // What a model computes, as its output check states it ("linear layers"), or the formulation a
  // device declares for a primitive's backward (kBackwardFromOutput); empty elsewhere.
  std::string formulation;
  std::string tolerance;  // the tolerance model in words ("4 ulp * scale, n=128 accumulation")
  Metrics metrics;
  double time_ms = 0;
  CallSpeed speed;  // of the forward call (a forward check) or the backward call (a gradient's)
  CaseMemory memory;
  std::uint64_t seed = 0;
  std::string repro;  // one-line command that reproduces this check
  TrainingSteps steps;
  // A FAIL or ERROR that the run's --expect file accounts for (results/expectations.hpp).
  bool expected = false;
};

struct DeviceSummary {
  std::string id, backend, name, driver, api_version;
  bool available = true;
  std::string unavailable_reason;
  std::vector<std::string> notes;
};

// The reference's own accuracy as the run verified it: the oracle check (harness/audit/oracle_check.hpp,
// the long-double reference against its formulas in MPFR) on the run's cases, sampled.
struct ReferenceAccuracy {
  std::string oracle;  // "MPFR 168-bit"; empty when the run did not check
  std::int64_t cases = 0, points = 0;
  std::int64_t cases_skipped = 0;  // too large for a sampled check (covered by ctest -L oracle)
  double worst_ratio = 0;          // max |ref - oracle| / tightest backend bound over every point
  double limit = 0;                // the ratio the reference must stay under (0.01)
  std::string worst_case, worst_direction;
  std::int64_t worst_index = -1;
  double seconds = 0;  // time the check took, summed over cases (what it adds to a run with --jobs 1)
  // Sampled elements of large-tier cases on slices longer than the check takes: not compared.
  std::int64_t points_skipped = 0;
};

struct RunMetadata {
  std::string version;
  std::string build_type;
  std::vector<std::string> build_options;  // "GP_WITH_OPENCL=ON", ...
  std::string started_at;                  // ISO 8601 UTC
  std::uint64_t seed = 0;
  std::string command_line;
  std::string shard;  // "1/4" or empty
  std::vector<DeviceSummary> devices;
  double wall_seconds = 0;
  // The case catalog the run drew from ("<cases> cases, <hash>"): shards of one run must agree.
  std::string catalog;
  // Stopped early (SIGINT/SIGTERM): the checks hold only the cases finished before the stop.
  bool interrupted = false;
  ReferenceAccuracy reference_accuracy;
  PhaseProfile profile;  // empty when the run did not measure one (a merged or older document)
};

// One stress mode on one device (harness/audit/stress.hpp): N threads x M iterations of forward +
// backward calls, every result compared bit for bit with a serial baseline of the same device.
struct StressResult {
  std::string backend;  // device id: "cpu", "opencl:0", "vulkan:0"
  std::string device;   // device name as the driver reports it
  std::string mode;     // "shared", "per-thread", "churn"
  std::string inject;   // fault injected on purpose (positive control), "" for a normal run
  int threads = 0;
  std::int64_t iterations = 0;                   // iterations each thread ran (the mean when --duration decides)
  std::int64_t calls = 0;                        // forward+backward calls compared with the baseline
  std::int64_t mismatches = 0;                   // calls whose output or a gradient differs in any byte
  std::int64_t nonfinite = 0;                    // calls with NaN/Inf where the baseline is finite
  std::int64_t errors = 0;                       // device errors thrown by calls, canary violations
  std::string crash;                             // "signal 11 (SIGSEGV)", "timeout after 60 s", "" when none
  std::int64_t validation_count = 0;             // validation-layer messages (Vulkan), all
  std::vector<std::string> validation_messages;  // the first few of them, verbatim
  std::vector<std::string> notes;                // first errors / mismatching cases, for the report
  double time_s = 0;                             // wall time of the mode, baseline included

  // Anything a correct backend never shows: a mismatch, a NaN/Inf, an error, a crash, a hang,
  // a validation message (UNASSIGNED-Threading-*, SYNC-HAZARD-*, ...).
  bool failed() const { return mismatches || nonfinite || errors || !crash.empty() || validation_count || calls == 0; }
};

struct RunReport {
  RunMetadata meta;
  std::vector<CheckResult> checks;
  std::vector<StressResult> stress;  // `gradparity stress` only; empty for parity runs
};

}  // namespace gp
