#include "harness/training/training_subject.hpp"

#include "harness/training/training.hpp"
#include "harness/training/training_loop.hpp"

namespace gp {

namespace {

std::vector<CheckResult> training_run_checks(const Composite& c, const CompositeReference& r,
                                             const DeviceContext& device, std::uint64_t seed) {
  return check_training_on_backend(c, device.id, *device.backend, *device.queue, r, seed);
}

std::vector<HostTensor> training_tensors(const Composite& c, const CompositeReference& r, const DeviceContext& device) {
  DeviceTrajectory t = train_on_device(c, *device.backend, *device.queue, r.leaves);
  HostTensor loss(DType::f64, Shape{static_cast<std::int64_t>(t.loss.size())});
  for (std::size_t k = 0; k < t.loss.size(); ++k) loss.set(static_cast<std::int64_t>(k), t.loss[k]);
  std::vector<HostTensor> out{std::move(loss)};
  for (auto& step : t.slots)
    for (auto& slot : step) out.push_back(std::move(slot));
  return out;
}

}  // namespace

const CompositeKind kTrainingKind{SubjectKind::training,    training_device_calls_of, prepare_training_reference,
                                  check_training_reference, training_run_checks,      training_tensors};

}  // namespace gp
