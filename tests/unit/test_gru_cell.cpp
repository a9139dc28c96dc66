// gru_cell: the reference against the contract (core/README.md) written out plainly, its shape
// rule, and the checker against a fake backend whose cell applies the reset gate before the
// hidden matmul (Cho et al.; Keras reset_after=False) or whose state gradient drops the direct
// path g z.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "reference/reference.hpp"
#include "support/fake_backend.hpp"
#include "support/gru_contract.hpp"

namespace gp {
namespace {

using ref::Real;
using namespace fake_backend_names;
using testing::contract_gates;
using testing::contract_output;
using testing::Gates;
using testing::reset_before_forward;

ref::RefTensor filled(Shape s, Real seed) {
  ref::RefTensor t;
  t.shape = s;
  for (std::int64_t i = 0; i < s.numel(); ++i) t.v.push_back(seed + Real(0.37) * Real(i % 7) - Real(0.05) * Real(i));
  return t;
}

// Small and lopsided (batch 2, input 3, hidden 4), so that a swapped gate, row or operand shows.
constexpr std::int64_t kB = 2, kI = 3, kH = 4;
std::vector<ref::RefTensor> contract_inputs() {
  return {filled(Shape{kB, kI}, -0.5),    filled(Shape{kB, kH}, 0.25), filled(Shape{3 * kH, kI}, -0.3),
          filled(Shape{3 * kH, kH}, 0.2), filled(Shape{3 * kH}, -0.1), filled(Shape{3 * kH}, 0.15)};
}

Real pairing(const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout, bool reset_before) {
  Real s = 0;
  const std::vector<Real> y = contract_output(in, reset_before);
  for (std::size_t e = 0; e < y.size(); ++e) s += dout.v[e] * y[e];
  return s;
}

// g is the gradient of <dout, the cell's output> by every element of every input (central
// differences; their truncation is about 1e-10 here).
void expect_derivative(const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout,
                       const std::vector<ref::RefTensor>& g, bool reset_before) {
  const Real step = 1e-5L;
  for (std::size_t k = 0; k < in.size(); ++k) {
    ASSERT_EQ(g[k].shape, in[k].shape);
    for (std::size_t e = 0; e < in[k].v.size(); ++e) {
      std::vector<ref::RefTensor> up = in, down = in;
      up[k].v[e] += step;
      down[k].v[e] -= step;
      const Real fd = (pairing(up, dout, reset_before) - pairing(down, dout, reset_before)) / (2 * step);
      EXPECT_NEAR(static_cast<double>(g[k].v[e]), static_cast<double>(fd), 1e-8) << "input " << k << " element " << e;
    }
  }
}

TEST(GruCell, ReferenceIsTheContractAndItsDerivative) {
  const std::vector<ref::RefTensor> in = contract_inputs();
  std::vector<Shape> shapes;
  for (const auto& t : in) shapes.push_back(t.shape);
  const OpCall call = make_call(OpKind::gru_cell, {}, DType::f64, shapes);
  ASSERT_EQ(call.output_shape, (Shape{kB, kH}));
  const ref::RefTensor y = ref::forward(call, in);
  const std::vector<Real> want = contract_output(in);
  for (std::size_t e = 0; e < want.size(); ++e)
    EXPECT_NEAR(static_cast<double>(y.v[e]), static_cast<double>(want[e]), 1e-15) << "element " << e;
  const ref::RefTensor dout = filled(y.shape, 0.75);
  expect_derivative(in, dout, ref::vjp(call, in, y, dout), false);
}

// The other formulation's VJP (the fused GRU's test runs it as a library's backward) is its
// derivative.
TEST(GruCell, TheResetBeforeCellsVjpIsItsOwnDerivative) {
  const std::vector<ref::RefTensor> in = contract_inputs();
  const ref::RefTensor dout = filled(Shape{kB, kH}, 0.75);
  expect_derivative(in, dout, testing::reset_before_vjp(in, dout), true);
}

TEST(GruCell, ShapeRuleRefusesMismatchedWeights) {
  auto call = [](Shape h, Shape w_ih, Shape w_hh, Shape b_ih) {
    return make_call(OpKind::gru_cell, {}, DType::f32, {Shape{3, 5}, h, w_ih, w_hh, b_ih, Shape{21}});
  };
  EXPECT_EQ(call({3, 7}, {21, 5}, {21, 7}, {21}).output_shape, (Shape{3, 7}));
  EXPECT_THROW(call({4, 7}, {21, 5}, {21, 7}, {21}), Error);  // h's batch is not x's
  EXPECT_THROW(call({3, 7}, {7, 5}, {21, 7}, {21}), Error);   // W_ih holds one gate, not three
  EXPECT_THROW(call({3, 7}, {21, 5}, {21, 5}, {21}), Error);  // W_hh [3H, I] instead of [3H, H]
  EXPECT_THROW(call({3, 7}, {21, 5}, {21, 7}, {7}), Error);   // b_ih of one gate
  EXPECT_THROW(call({3, 7}, {5, 21}, {21, 7}, {21}), Error);  // W_ih transposed
}

// --- a fake backend's cell against the primitive cases --------------------------------------------

// The state gradient without its direct path: dh = dgh W_hh, the g z term dropped.
void no_direct_state_path(const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                          const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  testing::exact_backward(call, in, out, dout, grads);
  if (!grads[1]) return;
  const std::vector<Gates> gates = contract_gates(testing::widen_inputs(in), false);
  HostTensor& dh = testing::host(*grads[1]);
  for (std::int64_t e = 0; e < dh.numel(); ++e)
    dh.set(e, dh.get(e) - testing::host(dout).get(e) * static_cast<double>(gates[static_cast<std::size_t>(e)].z));
}

std::vector<const Case*> gru_cell_cases() {
  std::vector<const Case*> out;
  for (const Case& c : all_cases())
    if (c.decl.op == OpKind::gru_cell && !has_empty_input(c.call)) out.push_back(&c);  // a batch to go wrong in
  if (out.empty()) throw Error("no gru_cell case");
  return out;
}

std::vector<CheckResult> run_on_fake(const Case& c, testing::MockQueue& queue) {
  testing::FakeBackend backend;
  const std::uint64_t seed = 5;
  return check_on_backend(c, {"fake", &backend, &queue}, prepare_reference(c, seed), {seed});
}

const CheckResult& check_of(const std::vector<CheckResult>& checks, Direction d, int input = 0) {
  for (const auto& c : checks)
    if (c.direction == d && (d != Direction::backward || c.input == input)) return c;
  throw Error("no such check");
}

TEST(GruCell, TheResetGateBeforeTheMatmulFailsEveryForwardCheck) {
  for (const Case* c : gru_cell_cases()) {
    NiceMock<testing::MockQueue> queue;
    ON_CALL(queue, forward(_, _, _)).WillByDefault(Invoke(reset_before_forward));
    const auto checks = run_on_fake(*c, queue);
    const CheckResult& f = check_of(checks, Direction::forward);
    EXPECT_EQ(f.verdict, Verdict::fail) << c->id << " margin " << f.metrics.margin;
    for (int k = 0; k < 6; ++k)  // the declared VJP, at the same inputs
      EXPECT_EQ(check_of(checks, Direction::backward, k).verdict, Verdict::pass) << c->id << " input " << k;
  }
}

TEST(GruCell, AStateGradientWithoutTheDirectPathFailsItsBackwardCheck) {
  for (const Case* c : gru_cell_cases()) {
    NiceMock<testing::MockQueue> queue;
    ON_CALL(queue, backward(_, _, _, _, _)).WillByDefault(Invoke(no_direct_state_path));
    const auto checks = run_on_fake(*c, queue);
    EXPECT_EQ(check_of(checks, Direction::backward, 1).verdict, Verdict::fail) << c->id;
    for (int k : {0, 2, 3, 4, 5}) EXPECT_EQ(check_of(checks, Direction::backward, k).verdict, Verdict::pass) << c->id;
    EXPECT_EQ(check_of(checks, Direction::forward).verdict, Verdict::pass) << c->id;
  }
}

}  // namespace
}  // namespace gp
