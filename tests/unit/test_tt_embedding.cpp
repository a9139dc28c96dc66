// tt_embedding: the reference against the contract (core/README.md) through the table it never
// forms, and the checker against a backend whose core gradients drop the rows of repeated ids.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "reference/reference.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using ref::Real;
using namespace fake_backend_names;
using ::testing::HasSubstr;

// --- the reference against the contract ----------------------------------------------------------

// Small and lopsided, so that a swapped digit, factor or rank shows: v = 2 x 3 x 2, d = 2 x 1 x 3,
// ranks (1, 2, 3, 1); ids repeat whole (4) and by digit.
constexpr int v1 = 2, v2 = 3, v3 = 2, d1 = 2, d2 = 1, d3 = 3, r1 = 2, r2 = 3;
const std::vector<int> kIds = {4, 11, 0, 4, 7};

ref::RefTensor filled_core(Shape s, Real seed) {
  ref::RefTensor t;
  t.shape = s;
  for (std::int64_t i = 0; i < s.numel(); ++i) t.v.push_back(seed + Real(0.37) * Real(i % 7) - Real(0.11) * Real(i));
  return t;
}

std::vector<ref::RefTensor> tt_contract_inputs() {
  ref::RefTensor ids;
  ids.shape = Shape{static_cast<std::int64_t>(kIds.size())};
  for (int id : kIds) ids.v.push_back(id);
  return {ids, filled_core(Shape{v1, 1, d1, r1}, 0.5), filled_core(Shape{v2, r1, d2, r2}, -0.25),
          filled_core(Shape{v3, r2, d3, 1}, 1.0)};
}

// Row `id` of the table, element (j1 d2 + j2) d3 + j3, written from the contract's indices.
Real table(const std::vector<ref::RefTensor>& in, int id, int j) {
  const int i1 = id / (v2 * v3), i2 = id / v3 % v2, i3 = id % v3;
  const int j1 = j / (d2 * d3), j2 = j / d3 % d2, j3 = j % d3;
  Real e = 0;
  for (int a = 0; a < r1; ++a)
    for (int c = 0; c < r2; ++c)
      e += in[1].v[static_cast<std::size_t>((i1 * d1 + j1) * r1 + a)] *
           in[2].v[static_cast<std::size_t>(((i2 * r1 + a) * d2 + j2) * r2 + c)] *
           in[3].v[static_cast<std::size_t>((i3 * r2 + c) * d3 + j3)];
  return e;
}

// <dout, E>: linear in each core, so its derivative by an element is its change when that
// element grows by 1.
Real pairing(const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout) {
  Real s = 0;
  for (std::size_t b = 0; b < kIds.size(); ++b)
    for (int j = 0; j < d1 * d2 * d3; ++j)
      s += dout.v[b * (d1 * d2 * d3) + static_cast<std::size_t>(j)] * table(in, kIds[b], j);
  return s;
}

TEST(TtEmbedding, ReferenceIsTheContractsTableAndItsDerivative) {
  const std::vector<ref::RefTensor> in = tt_contract_inputs();
  std::vector<Shape> shapes;
  for (const auto& t : in) shapes.push_back(t.shape);
  const OpCall call = make_call(OpKind::tt_embedding, {}, DType::f64, shapes);
  ASSERT_EQ(call.output_shape, (Shape{5, d1 * d2 * d3}));
  ASSERT_EQ(call.input_dtypes[0], DType::i32);
  const ref::RefTensor y = ref::forward(call, in);
  for (std::size_t b = 0; b < kIds.size(); ++b)
    for (int j = 0; j < d1 * d2 * d3; ++j)
      EXPECT_NEAR(static_cast<double>(y.v[b * (d1 * d2 * d3) + static_cast<std::size_t>(j)]),
                  static_cast<double>(table(in, kIds[b], j)), 1e-15)
          << "row " << b << " column " << j;
  const ref::RefTensor dout = filled_core(y.shape, 0.75);
  const std::vector<ref::RefTensor> g = ref::vjp(call, in, y, dout);
  EXPECT_TRUE(g[0].v.empty()) << "ids get no gradient";
  const Real base = pairing(in, dout);
  for (std::size_t k = 1; k <= 3; ++k) {
    ASSERT_EQ(g[k].shape, in[k].shape);
    for (std::size_t e = 0; e < in[k].v.size(); ++e) {
      std::vector<ref::RefTensor> bumped = in;
      bumped[k].v[e] += 1;
      EXPECT_NEAR(static_cast<double>(g[k].v[e]), static_cast<double>(pairing(bumped, dout) - base), 1e-13)
          << "core " << k << " element " << e;
    }
  }
}

TEST(TtEmbedding, ShapeRuleRefusesMismatchedCores) {
  auto call = [](Shape g1, Shape g2, Shape g3) {
    return make_call(OpKind::tt_embedding, {}, DType::f32, {Shape{3}, g1, g2, g3});
  };
  EXPECT_EQ(call({8, 1, 4, 4}, {8, 4, 4, 4}, {8, 4, 4, 1}).output_shape, (Shape{3, 64}));
  EXPECT_THROW(call({8, 2, 4, 4}, {8, 4, 4, 4}, {8, 4, 4, 1}), Error);  // G1's left rank is not 1
  EXPECT_THROW(call({8, 1, 4, 4}, {8, 8, 4, 4}, {8, 4, 4, 1}), Error);  // G1 and G2 disagree on r1
  EXPECT_THROW(call({8, 1, 4, 4}, {8, 4, 4, 4}, {8, 8, 4, 1}), Error);  // G2 and G3 disagree on r2
  EXPECT_THROW(call({8, 1, 4, 4}, {8, 4, 4, 4}, {8, 4, 4, 2}), Error);  // G3's right rank is not 1
  EXPECT_THROW(call({8, 1, 4}, {8, 4, 4, 4}, {8, 4, 4, 1}), Error);     // a core of rank 3
}

// --- a backend that drops the rows of repeated ids ----------------------------------------------

// The core gradients of a kernel that scatters each row's contribution by assignment: a core
// slice that several rows select keeps only the last row's contribution, not their sum.
void last_row_wins_backward(const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer&,
                            const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
  const TtGeometry g = tt_geometry(call);
  const auto inputs = testing::widen_inputs(in);
  const ref::RefTensor y = ref::forward(call, inputs), dy = ref::RefTensor::from_host(testing::host(dout));
  std::vector<ref::RefTensor> kept(4);
  for (std::size_t k = 1; k <= 3; ++k) {
    kept[k].shape = inputs[k].shape;
    kept[k].v.assign(inputs[k].v.size(), 0);
  }
  for (std::int64_t b = 0; b < g.batch; ++b) {
    ref::RefTensor row_only = dy;
    for (std::int64_t i = 0; i < row_only.numel(); ++i)
      if (i / g.dim() != b) row_only.v[static_cast<std::size_t>(i)] = 0;
    const std::vector<ref::RefTensor> part = ref::vjp(call, inputs, y, row_only);
    const auto id = static_cast<std::int64_t>(inputs[0].v[static_cast<std::size_t>(b)]);
    const TtGeometry::Digits i = g.digits(id);
    const std::int64_t slice_of[4] = {0, i.i1, i.i2, i.i3};
    for (std::size_t k = 1; k <= 3; ++k) {
      const std::int64_t size = inputs[k].numel() / inputs[k].shape[0];
      for (std::int64_t e = slice_of[k] * size; e < (slice_of[k] + 1) * size; ++e)
        kept[k].v[static_cast<std::size_t>(e)] = part[k].v[static_cast<std::size_t>(e)];
    }
  }
  for (std::size_t k = 1; k <= 3; ++k)
    if (grads[k]) testing::store(kept[k], testing::host(*grads[k]));
}

std::vector<CheckResult> run_on_fake(const std::string& case_id, testing::MockQueue& queue) {
  const Case* c = find_case(case_id);
  if (!c) throw Error("missing case " + case_id);
  testing::FakeBackend backend;
  const std::uint64_t seed = 5;
  return check_on_backend(*c, {"fake", &backend, &queue}, prepare_reference(*c, seed), {seed});
}

const CheckResult& backward_of(const std::vector<CheckResult>& checks, int input) {
  for (const auto& c : checks)
    if (c.direction == Direction::backward && c.input == input) return c;
  throw Error("no backward check of input " + std::to_string(input));
}

const char* const kRepeats = "tt_embedding(repeats,shape=64|8x1x4x4|8x4x4x4|8x4x4x1,dtype=f32)";

TEST(TtEmbedding, CoreGradientsThatKeepOnlyTheLastRowOfARepeatedIdFail) {
  NiceMock<testing::MockQueue> queue;
  ON_CALL(queue, backward(_, _, _, _, _)).WillByDefault(Invoke(last_row_wins_backward));
  const auto checks = run_on_fake(kRepeats, queue);
  for (int k : {1, 2, 3}) {
    const CheckResult& b = backward_of(checks, k);
    EXPECT_EQ(b.verdict, Verdict::fail) << "core " << k << ": " << b.reason;
    EXPECT_THAT(b.reason, HasSubstr("exceeds bound")) << "core " << k;
  }
}

TEST(TtEmbedding, ExactCoreGradientsPassTheSameCase) {
  NiceMock<testing::MockQueue> queue;
  const auto checks = run_on_fake(kRepeats, queue);
  for (int k : {1, 2, 3}) EXPECT_EQ(backward_of(checks, k).verdict, Verdict::pass) << backward_of(checks, k).reason;
}

}  // namespace
}  // namespace gp
