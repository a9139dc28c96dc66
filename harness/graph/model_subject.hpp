// A composite model as a Subject: its reference graph, the reference's finite-difference check,
// and the end-to-end, node-by-node and numerical checks on a device (graph/composite.hpp).
#pragma once

#include "harness/check/subject.hpp"
#include "harness/graph/composite.hpp"

namespace gp {

// What a model and a training run of it share: identity, blank results, the prepared graph.
class CompositeSubject : public Subject {
 public:
  explicit CompositeSubject(const Composite& c) : composite_(c) {}
  const std::string& id() const override { return composite_.id; }
  std::string_view op_name() const override { return composite_.decl.model; }
  DType dtype() const override { return composite_.dtype; }
  CheckResult blank(const std::string& device_id, std::uint64_t seed) const override;
  const Composite& composite() const { return composite_; }

 protected:
  const Composite& composite_;
};

class ModelSubject final : public CompositeSubject {
 public:
  using CompositeSubject::CompositeSubject;
  SubjectKind kind() const override { return SubjectKind::model; }
  Support supports(Backend& backend) const override;
  std::unique_ptr<PreparedSubject> prepare(const RunContext& run) const override;
};

// A prepared composite whose checks are two functions of the composite and its reference.
class PreparedComposite : public PreparedSubject {
 public:
  PreparedComposite(const Composite& c, CompositeReference ref) : composite_(c), ref_(std::move(ref)) {}
  const CompositeReference& reference() const { return ref_; }

 protected:
  const Composite& composite_;
  CompositeReference ref_;
};

}  // namespace gp
