// A composite model as a Subject: its reference graph, the reference's finite-difference check,
// and the end-to-end, node-by-node and numerical checks on a device (graph/composite.hpp). A
// training run of a model is the same subject with other functions (training/training_subject).
#pragma once

#include "harness/check/subject.hpp"
#include "harness/graph/composite.hpp"

namespace gp {

// What a kind of composite subject does: one row of functions per kind.
struct CompositeKind {
  SubjectKind kind;
  // Every call it makes on a device.
  std::vector<OpCall> (*device_calls)(const Composite& c);
  CompositeReference (*reference)(const Composite& c, std::uint64_t seed);
  std::vector<CheckResult> (*reference_checks)(const Composite& c, const CompositeReference& r, std::uint64_t seed);
  std::vector<CheckResult> (*device_checks)(const Composite& c, const CompositeReference& r,
                                            const DeviceContext& device, std::uint64_t seed);
  // Every tensor the device computes, unjudged (PreparedSubject::run_on).
  std::vector<HostTensor> (*device_tensors)(const Composite& c, const CompositeReference& r,
                                            const DeviceContext& device);
};

// A model: the graph's calls, the drawn leaves, the three checks.
extern const CompositeKind kModelKind;

class CompositeSubject final : public Subject {
 public:
  CompositeSubject(const Composite& c, const CompositeKind& kind) : composite_(c), kind_(kind) {}
  SubjectKind kind() const override { return kind_.kind; }
  const std::string& id() const override { return composite_.id; }
  std::string_view op_name() const override { return composite_.decl.model; }
  DType dtype() const override { return composite_.dtype; }
  Support supports(Backend& backend) const override;
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
  CheckResult blank(const std::string& device_id, std::uint64_t seed) const override;
  const Composite& composite() const { return composite_; }
  const CompositeKind& functions() const { return kind_; }

 private:
  const Composite& composite_;
  const CompositeKind& kind_;
};

// A composite's reference at one seed, judged by its kind's functions.
class PreparedComposite final : public PreparedSubject {
 public:
  PreparedComposite(const CompositeSubject& s, CompositeReference ref) : subject_(s), ref_(std::move(ref)) {}
  std::vector<CheckResult> check_reference(const RunContext& run) const override;
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const override;
  std::vector<HostTensor> run_on(const DeviceContext& device) const override;
  const CompositeReference& reference() const { return ref_; }

 private:
  const CompositeSubject& subject_;
  CompositeReference ref_;
};

}  // namespace gp
