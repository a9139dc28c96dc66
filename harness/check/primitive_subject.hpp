// A primitive case as a Subject: the reference data of check/checker, its numerical check (a) and
// the backend checks of check/backend_checks.
#pragma once

#include "harness/check/subject.hpp"

namespace gp {

// A subject that is one case of the catalog, of either tier: its identity, op, dtype, support
// and blank result (large/sampled_subject.hpp is the large tier's).
class CaseSubject : public Subject {
 public:
  explicit CaseSubject(const Case& c) : case_(c) {}
  SubjectKind kind() const override { return SubjectKind::primitive; }
  const std::string& id() const override { return case_.id; }
  std::string_view op_name() const override;
  DType dtype() const override { return case_.dtype; }
  // What the device says of the call, once its buffers fit (check/memory_fit.hpp).
  Support supports(Backend& backend) const override;
  CheckResult blank(const std::string& device_id, std::uint64_t seed) const override;

 protected:
  const Case& case_;
};

class PrimitiveSubject final : public CaseSubject {
 public:
  explicit PrimitiveSubject(const Case& c) : CaseSubject(c) {}
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
  const Case* primitive_case() const override { return &case_; }
};

}  // namespace gp
