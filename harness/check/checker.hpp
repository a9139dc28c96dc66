// One case, start to finish: reference data once per case, then the checks of each backend.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "cases/case.hpp"
#include "harness/check/context.hpp"
#include "harness/check/profile_memo.hpp"
#include "reference/reference.hpp"
#include "results/result.hpp"

namespace gp {

// Everything the reference says about a case at a seed: inputs (in the case dtype), the
// cotangent, the high-precision output and gradients, and per device math profile the same
// with the error bounds of a correct kernel (computed on first use, thread-safe).
struct ReferenceData {
  std::vector<HostTensor> inputs;
  HostTensor cotangent;
  std::vector<ref::RefTensor> ref_inputs;
  ref::RefTensor ref_cotangent;
  ref::RefTensor output;
  std::vector<ref::RefTensor> grads;
  OpCall call;
  // Where bounds are kept between runs (null: computed each time) and the id that, with the
  // inputs and the cotangent, addresses them there.
  ReferenceCache* cache = nullptr;
  std::string cache_id;

  // Output and gradients with `err` filled for a device with this profile (`flush`: it may
  // flush subnormal results); a null profile bounds the long-double reference's own rounding.
  const ref::Bounded& bounded(const MathProfile* profile, bool flush = false) const;

 private:
  ProfileMemo<ref::Bounded> bounded_;
};

ReferenceData prepare_reference(const Case& c, std::uint64_t seed, ReferenceCache* cache = nullptr);

// ref::bounded_evaluate at the data's inputs for `cotangent`, through the data's cache.
// `reads_profile`: see cached_bounds.
ref::Bounded bounded_for_cotangent(const ReferenceData& data, const ref::RefTensor& cotangent,
                                   const MathProfile* profile, bool flush = false, bool* reads_profile = nullptr);

// Only the gradients of bounded_for_cotangent (the output of the result is empty): another
// cotangent's, beside the case's own forward bound.
ref::Bounded bounded_gradients_for_cotangent(const ReferenceData& data, const ref::RefTensor& cotangent,
                                             const MathProfile* profile, bool flush = false);

// Counts reference / backend forward evaluations spent in numerical checks (benchmarks).
struct EvalCounter {
  std::int64_t reference_evals = 0;
  std::int64_t backend_evals = 0;
};

// Numerical check (a): the reference's analytic VJP against central differences of the
// reference in long double. Backend-independent; reported with backend "reference".
std::vector<CheckResult> check_reference_numerics(const Case& c, const ReferenceData& data, std::uint64_t seed,
                                                  const NumericalOptions& opts = {}, EvalCounter* counter = nullptr);

// What a backend produced, kept for `gradparity dump`.
struct BackendOutputs {
  HostTensor output;
  std::vector<HostTensor> grads;  // empty tensors for inputs without gradients
};

// What a caller may take from a backend check besides its results (benchmarks, `dump`).
struct CheckExtras {
  EvalCounter* counter = nullptr;
  BackendOutputs* keep = nullptr;
};

// Forward, backward (per input), numerical (b) and surrogate checks of one backend. Device
// errors become ERROR results for this case; nothing escapes.
std::vector<CheckResult> check_on_backend(const Case& c, const DeviceContext& device, const ReferenceData& data,
                                          const RunContext& run, const CheckExtras& extras = {});

// A result pre-filled with the case's identity and its repro line.
CheckResult blank_result(const Case& c, const std::string& device_id, Direction d, int input, std::uint64_t seed);

}  // namespace gp
