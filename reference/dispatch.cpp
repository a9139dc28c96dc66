// Public entry points: validate the call and the tensors, then hand over to the op's family.
#include <array>

#include "core/error.hpp"
#include "reference/internal.hpp"

namespace gp::ref {

namespace detail {

void fail(const OpCall& call, const std::string& what) {
  std::string where = std::string(op_name(call.kind));
  if (!call.case_id.empty()) where += " [" + call.case_id + "]";
  throw Error("reference: " + where + ": " + what);
}

RefTensor zeros(const Shape& shape) {
  RefTensor t;
  t.shape = shape;
  t.v.assign(at(shape.numel()), 0);
  t.scale.assign(at(shape.numel()), 0);
  return t;
}

RefTensor no_grad(const Shape& shape) {
  RefTensor t;
  t.shape = shape;
  return t;
}

void set_exact_scale(RefTensor& t) {
  t.scale.resize(t.v.size());
  for (std::size_t i = 0; i < t.v.size(); ++i) t.scale[i] = mag(t.v[i]);
}

}  // namespace detail

namespace {

using namespace detail;

struct FamilyImpl {
  RefTensor (*forward)(const OpCall&, const std::vector<RefTensor>&);
  std::vector<RefTensor> (*vjp)(const OpCall&, const std::vector<RefTensor>&, const RefTensor&);
};

// Indexed by OpFamily, in its declaration order.
constexpr std::array<FamilyImpl, 8> kFamilies = {{
    {unary_forward, unary_vjp},
    {binary_forward, binary_vjp},
    {reduction_forward, reduction_vjp},
    {rowwise_forward, rowwise_vjp},
    {linalg_forward, linalg_vjp},
    {layout_forward, layout_vjp},
    {loss_forward, loss_vjp},
    {chosen_forward, chosen_vjp},
}};
static_assert(static_cast<int>(OpFamily::chosen) == 7, "kFamilies follows OpFamily");

const FamilyImpl& family_of(const OpCall& call) { return kFamilies.at(static_cast<std::size_t>(op_family(call.kind))); }

void check_tensor(const OpCall& call, const RefTensor& t, const Shape& expected, const std::string& what) {
  if (t.shape != expected)
    fail(call, what + " has shape " + t.shape.to_string() + ", expected " + expected.to_string());
  if (t.numel() != expected.numel())
    fail(call, what + " holds " + std::to_string(t.numel()) + " values for shape " + expected.to_string());
}

// The call must be what core's make_call builds from its inputs (shapes, attributes, output
// shape), and the tensors must match it.
void check_call(const OpCall& call, const std::vector<RefTensor>& in) {
  OpCall expected;
  try {
    expected = make_call(call.kind, call.attrs, call.dtype, call.input_shapes, call.case_id);
  } catch (const Error& e) {
    fail(call, std::string("malformed call: ") + e.what());
  }
  if (expected.output_shape != call.output_shape)
    fail(call, "output shape " + call.output_shape.to_string() + " should be " + expected.output_shape.to_string());
  if (in.size() != call.input_shapes.size())
    fail(call, "got " + std::to_string(in.size()) + " input tensors for " + std::to_string(call.input_shapes.size()) +
                   " input shapes");
  for (std::size_t k = 0; k < in.size(); ++k) {
    check_tensor(call, in[k], call.input_shapes[k], "input " + std::to_string(k));
    if (in[k].numel() == 0) fail(call, "input " + std::to_string(k) + " is empty (" + in[k].shape.to_string() + ")");
  }
}

}  // namespace

RefTensor RefTensor::from_host(const HostTensor& t) {
  RefTensor r;
  r.shape = t.shape();
  r.v.resize(static_cast<std::size_t>(t.numel()));
  for (std::int64_t i = 0; i < t.numel(); ++i) r.v[static_cast<std::size_t>(i)] = static_cast<Real>(t.get(i));
  r.scale.assign(r.v.size(), 0);
  return r;
}

RefTensor forward(const OpCall& call, const std::vector<RefTensor>& inputs) {
  check_call(call, inputs);
  RefTensor out = family_of(call).forward(call, inputs);
  check_tensor(call, out, call.output_shape, "forward result");
  return out;
}

std::vector<RefTensor> vjp(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& out,
                           const RefTensor& dout) {
  check_call(call, inputs);
  // The reference recomputes what it needs from the inputs; `out` is only checked when given.
  if (!out.v.empty()) check_tensor(call, out, call.output_shape, "forward output");
  check_tensor(call, dout, call.output_shape, "output gradient");
  std::vector<RefTensor> grads = family_of(call).vjp(call, inputs, dout);
  if (grads.size() != inputs.size()) fail(call, "internal: wrong number of gradients");
  for (std::size_t k = 0; k < grads.size(); ++k) {
    if (!input_is_differentiable(call.kind, static_cast<int>(k))) {
      grads[k] = no_grad(inputs[k].shape);
      continue;
    }
    check_tensor(call, grads[k], inputs[k].shape, "gradient " + std::to_string(k));
    if (grads[k].scale.size() != grads[k].v.size()) fail(call, "internal: gradient scale missing");
  }
  return grads;
}

}  // namespace gp::ref
