// A special-values case (cases/special_values.hpp) as a Subject: on every device a forward check
// and one per gradient, each element compared with its set of exact values
// (check/special_values.hpp). Nothing is bounded; the reference has no check of its own.
#pragma once

#include "harness/check/primitive_subject.hpp"

namespace gp {

class SpecialValueSubject final : public CaseSubject {
 public:
  explicit SpecialValueSubject(const Case& c) : CaseSubject(c) {}
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
  const Case& special_case() const { return case_; }
};

// The checks of a special-values case on one device (a device error is one ERROR).
std::vector<CheckResult> check_special_values(const Case& c, const DeviceContext& device, std::uint64_t seed);

}  // namespace gp
