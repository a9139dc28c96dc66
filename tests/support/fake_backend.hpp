// A GoogleMock backend whose default behaviour is exact: forward and VJP come from the
// reference, rounded to the case dtype. Tests override one method to inject a bug class and
// prove that the checker reports it.
#pragma once

#include <gmock/gmock.h>

#include "backends/backend.hpp"
#include "reference/reference.hpp"

namespace gp::testing {

class HostBuffer : public DeviceBuffer {
 public:
  HostBuffer(DType t, const Shape& s) : DeviceBuffer(t, s), data(t, s) {}
  HostTensor data;
};

inline HostTensor& host(DeviceBuffer& b) { return static_cast<HostBuffer&>(b).data; }
inline const HostTensor& host(const DeviceBuffer& b) { return static_cast<const HostBuffer&>(b).data; }

inline std::vector<ref::RefTensor> widen_inputs(std::span<const DeviceBuffer* const> in) {
  std::vector<ref::RefTensor> v;
  for (const auto* b : in) v.push_back(ref::RefTensor::from_host(host(*b)));
  return v;
}

inline void store(const ref::RefTensor& r, HostTensor& out) {
  for (std::int64_t i = 0; i < out.numel(); ++i) out.set(i, static_cast<double>(r.v[static_cast<std::size_t>(i)]));
}

// The call's inputs, each strided one (core/strided.hpp) read through its layout.
inline std::vector<ref::RefTensor> widen_inputs(const OpCall& call, std::span<const DeviceBuffer* const> in) {
  std::vector<ref::RefTensor> v;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const StridedLayout* layout = input_layout(call, k);
    v.push_back(
        ref::RefTensor::from_host(layout ? from_storage(host(*in[k]), call.input_shapes[k], *layout) : host(*in[k])));
  }
  return v;
}

// The exact implementations the mocks delegate to by default.
inline void exact_forward(const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
  store(ref::forward(call, widen_inputs(call, in)), host(out));
}

inline void exact_backward(const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                           const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  auto inputs = widen_inputs(call, in);
  auto y = ref::forward(call, inputs);
  auto g = ref::vjp(call, inputs, y, ref::RefTensor::from_host(host(dout)));
  for (std::size_t k = 0; k < grads.size(); ++k)
    if (grads[k]) store(g[k], host(*grads[k]));
}

class MockQueue : public Queue {
 public:
  MockQueue() {
    using ::testing::Invoke;
    ON_CALL(*this, upload).WillByDefault(Invoke([](DeviceBuffer& d, const HostTensor& s) { host(d) = s; }));
    ON_CALL(*this, download).WillByDefault(Invoke([](const DeviceBuffer& b) { return host(b); }));
    ON_CALL(*this, forward).WillByDefault(Invoke(exact_forward));
    ON_CALL(*this, backward).WillByDefault(Invoke(exact_backward));
  }
  MOCK_METHOD(void, upload, (DeviceBuffer&, const HostTensor&), (override));
  MOCK_METHOD(HostTensor, download, (const DeviceBuffer&), (override));
  MOCK_METHOD(void, forward, (const OpCall&, std::span<const DeviceBuffer* const>, DeviceBuffer&), (override));
  MOCK_METHOD(void, backward,
              (const OpCall&, std::span<const DeviceBuffer* const>, const DeviceBuffer&, const DeviceBuffer&,
               std::span<DeviceBuffer* const>),
              (override));
  MOCK_METHOD(void, finish, (), (override));
};

class FakeBackend : public Backend {
 public:
  // Its "device" rounds every result correctly: the tightest math profile there is.
  FakeBackend() {
    info_.backend = info_.name = "fake";
    info_.math = &correctly_rounded_profile();
  }
  const DeviceInfo& info() const override { return info_; }
  // Another profile for the device (a declared formulation: core/math_profile.hpp).
  void set_math(const MathProfile& math) { info_.math = &math; }
  // Whether the device declares that it may flush subnormals (DeviceInfo::may_flush_subnormals).
  void set_may_flush_subnormals(bool flush) { info_.may_flush_subnormals = flush; }
  Support supports(const OpCall&) const override { return Support::yes(); }
  std::unique_ptr<DeviceBuffer> allocate(DType t, const Shape& s) override {
    return std::make_unique<HostBuffer>(t, s);
  }
  std::unique_ptr<Queue> create_queue() override { return std::make_unique<::testing::NiceMock<MockQueue>>(); }

 private:
  DeviceInfo info_;
};

}  // namespace gp::testing

// What the tests of a fake backend name, for one `using namespace gp::fake_backend_names;`
// instead of the same list of using-declarations in every test file.
namespace gp::fake_backend_names {
using ::testing::_;
using testing::exact_backward;
using testing::exact_forward;
using testing::FakeBackend;
using testing::host;
using testing::HostBuffer;
using ::testing::Invoke;
using testing::MockQueue;
using ::testing::NiceMock;
}  // namespace gp::fake_backend_names
