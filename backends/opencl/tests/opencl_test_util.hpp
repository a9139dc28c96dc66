// Helpers shared by the OpenCL backend tests: run one op forward / backward on a backend from
// host tensors, and a process-wide backend instance so that programs are built once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/opencl_backend.hpp"

namespace gp::testutil {

// The first OpenCL device, created once per process; nullptr (with `why`) when none exists.
inline opencl::OpenclBackend* shared_opencl_backend(std::string* why = nullptr) {
  static std::string reason;
  static std::unique_ptr<opencl::OpenclBackend> backend = [] {
    try {
      return opencl::create_backend(0);
    } catch (const std::exception& e) {
      reason = e.what();
      return std::unique_ptr<opencl::OpenclBackend>{};
    }
  }();
  if (why) *why = reason;
  return backend.get();
}

struct OpRun {
  HostTensor out;
  std::vector<HostTensor> grads;  // empty tensor (numel 1, no meaning) where no gradient
  std::vector<bool> has_grad;
};

// Uploads inputs, runs forward and (when dout is given) backward, downloads everything.
inline OpRun run_op(Backend& backend, Queue& q, const OpCall& call, const std::vector<HostTensor>& inputs,
                    const HostTensor* dout) {
  std::vector<std::unique_ptr<DeviceBuffer>> in_bufs;
  std::vector<const DeviceBuffer*> in_ptrs;
  for (const auto& t : inputs) {
    in_bufs.push_back(backend.allocate(t.dtype(), t.shape()));
    q.upload(*in_bufs.back(), t);
    in_ptrs.push_back(in_bufs.back().get());
  }
  auto out = backend.allocate(call.dtype, call.output_shape);
  q.forward(call, in_ptrs, *out);
  OpRun r;
  r.out = q.download(*out);
  if (!dout) return r;
  auto g = backend.allocate(call.dtype, call.output_shape);
  q.upload(*g, *dout);
  std::vector<std::unique_ptr<DeviceBuffer>> grad_bufs;
  std::vector<DeviceBuffer*> grad_ptrs;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    bool want = input_is_differentiable(call.kind, static_cast<int>(k));
    grad_bufs.push_back(want ? backend.allocate(call.dtype, call.input_shapes[k]) : nullptr);
    grad_ptrs.push_back(grad_bufs.back().get());
  }
  q.backward(call, in_ptrs, *out, *g, grad_ptrs);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    r.has_grad.push_back(grad_bufs[k] != nullptr);
    r.grads.push_back(grad_bufs[k] ? q.download(*grad_bufs[k]) : HostTensor{});
  }
  q.finish();
  return r;
}

// A tensor filled by f(i).
inline HostTensor make_tensor(DType dt, const Shape& s, const std::function<double(std::int64_t)>& f) {
  HostTensor t(dt, s);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, f(i));
  return t;
}

}  // namespace gp::testutil
