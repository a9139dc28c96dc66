#include "harness/graph/model_subject.hpp"

#include "harness/graph/composite_checks.hpp"

namespace gp {

namespace {

CompositeReference model_reference(const Composite& c, std::uint64_t seed) {
  return prepare_composite_reference(c, seed);
}

std::vector<CheckResult> model_checks(const Composite& c, const CompositeReference& r, const DeviceContext& device,
                                      std::uint64_t seed) {
  return check_composite_on_backend(c, device.id, *device.backend, *device.queue, r, seed);
}

std::vector<HostTensor> model_tensors(const Composite& c, const CompositeReference& r, const DeviceContext& device) {
  DeviceGraph d = run_graph_on_device(c, *device.backend, *device.queue, r.leaves);
  std::vector<HostTensor> out{std::move(d.output), std::move(d.loss)};
  for (auto& [name, g] : d.grads) out.push_back(std::move(g));
  return out;
}

}  // namespace

const CompositeKind kModelKind{SubjectKind::model,        device_calls_of, model_reference,
                               check_composite_reference, model_checks,    model_tensors};

Support CompositeSubject::supports(Backend& backend) const {
  return supports_calls(backend, kind_.device_calls(composite_));
}

std::unique_ptr<PreparedSubject> CompositeSubject::prepare(const RunContext& run) const {
  CompositeReference r = kind_.reference(composite_, run.seed);
  r.cache = run.reference_cache;
  return std::make_unique<PreparedComposite>(*this, std::move(r));
}

CheckResult CompositeSubject::blank(const std::string& device_id, std::uint64_t seed) const {
  return blank_composite_result(composite_, device_id, Direction::forward, "", seed);
}

std::vector<CheckResult> PreparedComposite::check_reference(const RunContext& run) const {
  return subject_.functions().reference_checks(subject_.composite(), ref_, run.seed);
}

std::vector<CheckResult> PreparedComposite::check_on(const DeviceContext& device, const RunContext& run) const {
  return subject_.functions().device_checks(subject_.composite(), ref_, device, run.seed);
}

std::vector<HostTensor> PreparedComposite::run_on(const DeviceContext& device) const {
  return subject_.functions().device_tensors(subject_.composite(), ref_, device);
}

}  // namespace gp
