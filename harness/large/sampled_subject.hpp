// A large-tier case as a Subject (docs/scale.md): the device computes every element at full size;
// the reference evaluates the sampled elements alone (sampled_reference.hpp), and each output and
// gradient is compared there against the same per-element bounds as the small tier's. The audits
// that read a primitive's whole reference (stress, selftest, the oracle sample) take small cases
// only: primitive_case() is null here.
#pragma once

#include "harness/check/primitive_subject.hpp"

namespace gp {

class SampledSubject final : public CaseSubject {
 public:
  // Throws gp::Error for a case the large tier cannot check (an op without element slices, a
  // straight-through op whose declared surrogate the sample does not judge).
  explicit SampledSubject(const Case& c);
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
  Tier tier() const override { return Tier::large; }
  const Case* large_case() const override { return &case_; }
};

// Every sampled comparison of a large case on one device: the output and each gradient (a
// second backward that must repeat every bit of the whole gradient). Device errors become an
// ERROR result; nothing escapes.
struct SampledReference;
std::vector<CheckResult> check_sampled_on_backend(const Case& c, const DeviceContext& device,
                                                  const SampledReference& reference, const RunContext& run);

}  // namespace gp
