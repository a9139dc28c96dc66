// A subject of a run: anything with a reference and checks on a device. A primitive case
// (check/primitive_subject), a composite model (graph/model_subject) and a training run
// (training/training_subject) are the three kinds; the runner, repro, dump and the ctest suite
// see a subject only through this interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"
#include "cases/case.hpp"
#include "harness/check/checker.hpp"
#include "results/result.hpp"

namespace gp {

struct SampledReference;  // harness/large/sampled_reference.hpp

// A subject's reference data at one seed: prepared once, then judged on every device.
class PreparedSubject {
 public:
  virtual ~PreparedSubject() = default;
  // The reference's own checks (backend "reference"), the same for every device.
  virtual std::vector<CheckResult> check_reference(const RunContext& run) const = 0;
  // Every check on one device. Device errors become ERROR results; DeviceLost propagates.
  virtual std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const = 0;
  // Every tensor the device computes for the subject at the prepared inputs, unjudged: the
  // stress audit compares them bit for bit between threads and a serial run. Throws device errors.
  virtual std::vector<HostTensor> run_on(const DeviceContext& device) const = 0;
  // The primitive case's reference data, for the audits that take primitives only (the
  // oracle's sampled check of a run); null for models and training runs.
  virtual const ReferenceData* primitive_data() const { return nullptr; }
  // A large-tier case's sampled reference, for the oracle's check of it; null otherwise.
  virtual const SampledReference* sampled_data() const { return nullptr; }
};

class Subject {
 public:
  virtual ~Subject() = default;
  virtual SubjectKind kind() const = 0;
  // The stable id: the gtest name, the --filter value, the report key and the repro argument.
  virtual const std::string& id() const = 0;
  // The name --op selects it by: a primitive's op, a model's name ("mlp", "train").
  virtual std::string_view op_name() const = 0;
  virtual DType dtype() const = 0;
  // Whether a backend runs every call the subject makes (the reason names the op that it lacks).
  // May throw: a plugin's supports() can fail.
  virtual Support supports(Backend& backend) const = 0;
  // Inputs and the reference's results at a seed; throws when the reference cannot prepare them.
  virtual std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const = 0;
  // A result with the subject's identity and repro line, for verdicts decided outside its checks
  // (a missing device, an op the backend lacks, a lost device).
  virtual CheckResult blank(const std::string& device_id, std::uint64_t seed) const = 0;
  // The primitive case behind the subject, for the audits that take primitives only so far
  // (stress, selftest, the oracle); null for models and training runs.
  virtual const Case* primitive_case() const { return nullptr; }
  // The large-tier case behind the subject (harness/large/), for selftest's large faults.
  virtual const Case* large_case() const { return nullptr; }
  // The tier of its sizes: a large case (harness/large/) compares a sample of each tensor.
  virtual Tier tier() const { return Tier::small; }
};

}  // namespace gp
