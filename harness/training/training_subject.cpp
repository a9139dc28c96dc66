#include "harness/training/training_subject.hpp"

#include "harness/training/training.hpp"
#include "harness/training/training_loop.hpp"

namespace gp {

std::vector<OpCall> TrainingSubject::device_calls() const { return training_device_calls_of(composite_); }

CompositeReference TrainingSubject::reference(std::uint64_t seed) const {
  return prepare_training_reference(composite_, seed);
}

std::vector<CheckResult> TrainingSubject::reference_checks(const CompositeReference& r, const RunContext& run) const {
  return check_training_reference(composite_, r, run.seed);
}

std::vector<CheckResult> TrainingSubject::device_checks(const CompositeReference& r, const DeviceContext& device,
                                                        const RunContext& run) const {
  return check_training_on_backend(composite_, device.id, *device.backend, *device.queue, r, run.seed);
}

std::vector<HostTensor> TrainingSubject::device_tensors(const CompositeReference& r,
                                                        const DeviceContext& device) const {
  DeviceTrajectory t = train_on_device(composite_, *device.backend, *device.queue, r.leaves);
  HostTensor loss(DType::f64, Shape{static_cast<std::int64_t>(t.loss.size())});
  for (std::size_t k = 0; k < t.loss.size(); ++k) loss.set(static_cast<std::int64_t>(k), t.loss[k]);
  std::vector<HostTensor> out{std::move(loss)};
  for (auto& step : t.slots)
    for (auto& slot : step) out.push_back(std::move(slot));
  return out;
}

}  // namespace gp
