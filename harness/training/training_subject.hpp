// A training run as a Subject: the reference's trajectory and its convergence, then the whole
// loop on a device against it (training/training.hpp).
#pragma once

#include "harness/graph/model_subject.hpp"

namespace gp {

class TrainingSubject final : public CompositeSubject {
 public:
  using CompositeSubject::CompositeSubject;
  SubjectKind kind() const override { return SubjectKind::training; }
  Support supports(Backend& backend) const override;
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
};

}  // namespace gp
