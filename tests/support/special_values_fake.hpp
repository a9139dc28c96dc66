// A fake device for the IEEE special-value checks (harness/check/special_value_subject.hpp): the
// contract's forward and backward, then changed by a test's edit, and the specials cases by id.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cases/special_values.hpp"
#include "harness/check/special_value_subject.hpp"
#include "tests/support/fake_backend.hpp"

namespace gp::testing {

using namespace fake_backend_names;

inline const Case& special_case(const std::string& id) {
  for (const Case& c : special_value_cases())
    if (c.id == id) return c;
  throw std::runtime_error("no special-values case " + id);
}
// The f32 case of an op whose case id depends on a catalog case's shapes (layout) or attributes.
inline const Case& f32_special_case(OpKind op) {
  for (const Case& c : special_value_cases())
    if (c.decl.op == op && c.dtype == DType::f32) return c;
  throw std::runtime_error("no f32 special-values case of " + std::string(op_name(op)));
}

// A fake device whose forward (or backward) is the contract's, then changed by `edit`.
class EditedQueue : public NiceMock<MockQueue> {
 public:
  EditedQueue(std::function<void(HostTensor&)> forward_edit, std::function<void(HostTensor&)> backward_edit) {
    ON_CALL(*this, forward)
        .WillByDefault(Invoke([=](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
          exact_forward(call, in, out);
          if (forward_edit) forward_edit(host(out));
        }));
    ON_CALL(*this, backward)
        .WillByDefault(Invoke([=](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                                  const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
          exact_backward(call, in, out, dout, grads);
          if (backward_edit) backward_edit(host(*grads[0]));
        }));
  }
};

inline std::vector<CheckResult> checks_of(const Case& c, std::function<void(HostTensor&)> forward_edit = {},
                                          std::function<void(HostTensor&)> backward_edit = {}) {
  FakeBackend backend;
  EditedQueue queue(std::move(forward_edit), std::move(backward_edit));
  return check_special_values(c, DeviceContext{"fake", &backend, &queue}, 1);
}

}  // namespace gp::testing
