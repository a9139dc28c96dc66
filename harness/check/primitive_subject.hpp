// A primitive case as a Subject: the reference data of check/checker, its numerical check (a) and
// the backend checks of check/backend_checks.
#pragma once

#include "harness/check/subject.hpp"

namespace gp {

class PrimitiveSubject final : public Subject {
 public:
  explicit PrimitiveSubject(const Case& c) : case_(c) {}
  SubjectKind kind() const override { return SubjectKind::primitive; }
  const std::string& id() const override { return case_.id; }
  std::string_view op_name() const override;
  DType dtype() const override { return case_.dtype; }
  Support supports(Backend& backend) const override { return backend.supports(case_.call); }
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
  CheckResult blank(const std::string& device_id, std::uint64_t seed) const override;
  const Case* primitive_case() const override { return &case_; }

 private:
  const Case& case_;
};

}  // namespace gp
