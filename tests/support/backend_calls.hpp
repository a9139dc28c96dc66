// One op call on any backend, forward then backward, for tests that drive a backend directly
// (the backends' own tests, tests/unit/test_long_rows.cpp): no poisoning, no repeat, no bound.
#pragma once

#include <memory>
#include <vector>

#include "backends/backend.hpp"
#include "core/op.hpp"
#include "core/tensor.hpp"

namespace gp::backend_calls {

inline HostTensor tensor(DType dt, Shape s, const std::vector<double>& v) {
  HostTensor t(dt, std::move(s));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, v.at(static_cast<std::size_t>(i)));
  return t;
}

struct RunResult {
  HostTensor out;
  std::vector<HostTensor> grads;  // empty tensors where an input gets no gradient
};

// Forward, then backward with cotangent `dout` (ones when null).
inline RunResult run(Backend& be, const OpCall& call, const std::vector<HostTensor>& inputs,
                     const HostTensor* dout = nullptr) {
  auto q = be.create_queue();
  std::vector<std::unique_ptr<DeviceBuffer>> in;
  std::vector<const DeviceBuffer*> in_ptrs;
  for (const auto& t : inputs) {
    in.push_back(be.allocate(t.dtype(), t.shape()));
    q->upload(*in.back(), t);
    in_ptrs.push_back(in.back().get());
  }
  auto out = be.allocate(call.dtype, call.output_shape);
  q->forward(call, in_ptrs, *out);
  RunResult r;
  r.out = q->download(*out);

  HostTensor ones(call.dtype, call.output_shape);
  for (std::int64_t i = 0; i < ones.numel(); ++i) ones.set(i, 1.0);
  auto g = be.allocate(call.dtype, call.output_shape);
  q->upload(*g, dout ? *dout : ones);
  std::vector<std::unique_ptr<DeviceBuffer>> grads;
  std::vector<DeviceBuffer*> grad_ptrs;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    bool wanted = input_is_differentiable(call.kind, static_cast<int>(k));
    grads.push_back(wanted ? be.allocate(call.dtype, call.input_shapes[k]) : nullptr);
    grad_ptrs.push_back(grads.back().get());
  }
  q->backward(call, in_ptrs, *out, *g, grad_ptrs);
  for (auto& gb : grads) r.grads.push_back(gb ? q->download(*gb) : HostTensor());
  q->finish();
  return r;
}

}  // namespace gp::backend_calls
