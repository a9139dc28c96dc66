// A composite model as a Subject: its reference graph, the reference's finite-difference check,
// and the end-to-end, node-by-node and numerical checks on a device (graph/composite.hpp).
#pragma once

#include "harness/check/subject.hpp"
#include "harness/graph/composite.hpp"

namespace gp {

// What a model and a training run of it share: identity, blank results, the prepared
// reference; the five functions below are what they do differently.
class CompositeSubject : public Subject {
 public:
  explicit CompositeSubject(const Composite& c) : composite_(c) {}
  const std::string& id() const override { return composite_.id; }
  std::string_view op_name() const override { return composite_.decl.model; }
  DType dtype() const override { return composite_.dtype; }
  Support supports(Backend& backend) const override;
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
  CheckResult blank(const std::string& device_id, std::uint64_t seed) const override;
  const Composite& composite() const { return composite_; }

  // Every call it makes on a device.
  virtual std::vector<OpCall> device_calls() const = 0;
  virtual CompositeReference reference(std::uint64_t seed) const = 0;
  virtual std::vector<CheckResult> reference_checks(const CompositeReference& r, const RunContext& run) const = 0;
  virtual std::vector<CheckResult> device_checks(const CompositeReference& r, const DeviceContext& device,
                                                 const RunContext& run) const = 0;
  virtual std::vector<HostTensor> device_tensors(const CompositeReference& r, const DeviceContext& device) const = 0;

 protected:
  const Composite& composite_;
};

// A composite's reference at one seed, judged through its subject.
class PreparedComposite final : public PreparedSubject {
 public:
  PreparedComposite(const CompositeSubject& s, CompositeReference ref) : subject_(s), ref_(std::move(ref)) {}
  std::vector<CheckResult> check_reference(const RunContext& run) const override {
    return subject_.reference_checks(ref_, run);
  }
  std::vector<CheckResult> check_on(const DeviceContext& device, const RunContext& run) const override {
    return subject_.device_checks(ref_, device, run);
  }
  std::vector<HostTensor> run_on(const DeviceContext& device) const override {
    return subject_.device_tensors(ref_, device);
  }
  const CompositeReference& reference() const { return ref_; }

 private:
  const CompositeSubject& subject_;
  CompositeReference ref_;
};

class ModelSubject final : public CompositeSubject {
 public:
  using CompositeSubject::CompositeSubject;
  SubjectKind kind() const override { return SubjectKind::model; }
  std::vector<OpCall> device_calls() const override;
  CompositeReference reference(std::uint64_t seed) const override;
  std::vector<CheckResult> reference_checks(const CompositeReference& r, const RunContext& run) const override;
  std::vector<CheckResult> device_checks(const CompositeReference& r, const DeviceContext& device,
                                         const RunContext& run) const override;
  std::vector<HostTensor> device_tensors(const CompositeReference& r, const DeviceContext& device) const override;
};

}  // namespace gp
