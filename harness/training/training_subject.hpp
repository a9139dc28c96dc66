// A training run as a Subject: the reference's trajectory and its convergence, then the whole
// loop on a device against it (training/training.hpp).
#pragma once

#include "harness/graph/model_subject.hpp"

namespace gp {

class TrainingSubject final : public CompositeSubject {
 public:
  using CompositeSubject::CompositeSubject;
  SubjectKind kind() const override { return SubjectKind::training; }
  // The graph's calls and the optimizer's.
  std::vector<OpCall> device_calls() const override;
  // Drawn leaves with the teacher's targets.
  CompositeReference reference(std::uint64_t seed) const override;
  std::vector<CheckResult> reference_checks(const CompositeReference& r, const RunContext& run) const override;
  std::vector<CheckResult> device_checks(const CompositeReference& r, const DeviceContext& device,
                                         const RunContext& run) const override;
  // The loss at every step, then every parameter and optimizer state at every step.
  std::vector<HostTensor> device_tensors(const CompositeReference& r, const DeviceContext& device) const override;
};

}  // namespace gp
