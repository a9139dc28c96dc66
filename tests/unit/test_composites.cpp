// Composite models: a backend whose kernels are exact passes all three checks; each bug of the
// incidents behind the models fails end to end and in the node check that names the broken node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "harness/graph/composite.hpp"
#include "harness/graph/composite_checks.hpp"
#include "harness/run/runner.hpp"
#include "support/fake_backend.hpp"
#include "support/gru_contract.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

constexpr std::uint64_t kCompositeSeed = 5;

using testing::composite;

std::vector<CheckResult> run_on(const Composite& c, MockQueue& queue) {
  FakeBackend backend;
  const CompositeReference r = prepare_composite_reference(c, kCompositeSeed);
  std::vector<CheckResult> out = check_composite_reference(c, r, kCompositeSeed);
  for (auto& x : check_composite_on_backend(c, "fake", backend, queue, r, kCompositeSeed)) out.push_back(std::move(x));
  return out;
}

// The backend's check of that part (not the reference's own numerical check).
const CheckResult& part(const std::vector<CheckResult>& checks, const std::string& label) {
  for (const auto& c : checks)
    if (c.part == label && c.backend == "fake") return c;
  throw Error("no check " + label);
}

// The backward of `op` with a bug applied to its exact gradients; every other op exact.
void backward_of(MockQueue& q, OpKind op, std::function<void(const OpCall&, std::span<DeviceBuffer* const>)> bug) {
  ON_CALL(q, backward)
      .WillByDefault(
          Invoke([op, bug](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                           const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
            exact_backward(call, in, out, dout, grads);
            if (call.kind == op) bug(call, grads);
          }));
}

TEST(Composites, AnExactBackendPassesEveryCheckOfEveryModel) {
  for (const char* id : {"mlp(layers=3,batch=7,act=gelu,dtype=f32)", "gru(seq=10,batch=8,input=16,hidden=32,dtype=f64)",
                         "gru(seq=10,batch=8,input=16,hidden=32,cell=fused,dtype=f32)",
                         "gated(gate=ste_hardtanh_gate,batch=8,dtype=f32)"}) {
    NiceMock<MockQueue> q;
    int judged = 0;
    for (const auto& c : run_on(composite(id), q)) {
      EXPECT_TRUE(c.verdict == Verdict::pass || c.verdict == Verdict::skip)
          << id << " " << c.backend << " " << check_label(c) << ": " << c.reason;
      judged += c.verdict == Verdict::pass;
    }
    EXPECT_GT(judged, 10) << id;
  }
}

// A device that lacks some of a model's ops: one SKIP names them all, each once (a plugin author
// learnt of them one run at a time).
TEST(Composites, ASkipNamesEveryOpTheDeviceLacks) {
  class Lacking : public FakeBackend {
   public:
    explicit Lacking(std::set<OpKind> ops) : lacking_(std::move(ops)) {}
    Support supports(const OpCall& call) const override {
      return lacking_.count(call.kind) ? Support::no("not here") : Support::yes();
    }

   private:
    std::set<OpKind> lacking_;
  };
  const Composite& c = composite("mlp(layers=3,batch=7,act=gelu,dtype=f32)");
  std::set<OpKind> used;
  for (const OpCall& call : device_calls_of(c)) used.insert(call.kind);
  ASSERT_GE(used.size(), 3U);
  used.erase(used.begin());  // the device has one of the model's ops
  Lacking backend(used);
  const std::vector<CheckResult> out = guarded_composite_checks(c, device_calls_of(c), "fake", backend, kCompositeSeed,
                                                                [] { return std::vector<CheckResult>{}; });
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].verdict, Verdict::skip);
  EXPECT_THAT(out[0].reason, ::testing::HasSubstr(std::to_string(used.size()) + " ops missing: "));
  for (const OpKind op : used) {
    const std::string named = std::string(op_name(op)) + ": not here";
    const auto at = out[0].reason.find(named);
    EXPECT_NE(at, std::string::npos) << named << " in " << out[0].reason;
    EXPECT_EQ(out[0].reason.find(named, at + 1), std::string::npos) << named << " twice in " << out[0].reason;
  }
}

// The KAN incident: the first layer never computed its input gradient (compute_input_grad =
// layer_idx > 0), so a single-layer network's input gradient was zero.
TEST(Composites, AZeroInputGradientOfASingleLayerNetFailsAtItsNode) {
  NiceMock<MockQueue> q;
  backward_of(q, OpKind::linear, [](const OpCall&, std::span<DeviceBuffer* const> g) {
    HostTensor& dx = host(*g[0]);
    for (std::int64_t i = 0; i < dx.numel(); ++i) dx.set(i, 0.0);
  });
  const auto checks = run_on(composite("mlp(layers=1,batch=7,dtype=f32)"), q);
  EXPECT_EQ(part(checks, "grad x").verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "node 0 linear (layer 1) backward input 0").verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "grad W1").verdict, Verdict::pass);
  EXPECT_EQ(part(checks, "loss gradient").verdict, Verdict::fail);  // numerical, on the backend
}

// A bias gradient that averages the output gradient over the batch instead of summing it.
TEST(Composites, ABiasGradientWithoutTheBatchSumFailsAtItsNode) {
  NiceMock<MockQueue> q;
  backward_of(q, OpKind::linear, [](const OpCall& call, std::span<DeviceBuffer* const> g) {
    HostTensor& db = host(*g[2]);
    const MatmulDims d = matmul_dims(call);
    for (std::int64_t j = 0; j < d.n; ++j) db.set(j, db.get(j) / static_cast<double>(d.m));
  });
  const auto checks = run_on(composite("mlp(layers=3,batch=16,act=tanh,dtype=f64)"), q);
  for (const char* b : {"grad b1", "grad b2", "grad b3"}) EXPECT_EQ(part(checks, b).verdict, Verdict::fail) << b;
  EXPECT_EQ(part(checks, "node 4 linear (layer 3) backward input 2").verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "node 4 linear (layer 3) backward input 1").verdict, Verdict::pass);
}

// Gradients of a tensor read by several nodes (a GRU's state feeds four) are summed on the
// device: an `add` that drops one part fails end to end, while every node passes alone.
TEST(Composites, AGradientSumThatDropsAPartFailsEndToEnd) {
  NiceMock<MockQueue> q;
  ON_CALL(q, forward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        exact_forward(call, in, out);
        if (call.case_id.find("gradient sum") != std::string::npos) host(out) = host(*in[0]);
      }));
  const auto checks = run_on(composite("gru(seq=10,batch=8,input=16,hidden=32,dtype=f64)"), q);
  EXPECT_EQ(part(checks, "grad h0").verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "grad W_hn").verdict, Verdict::fail);
  for (const auto& c : checks) {
    if (c.direction == Direction::node) {
      EXPECT_EQ(c.verdict, Verdict::pass) << c.part << ": " << c.reason;
    }
  }
}

// A gradient sum kept in 16-bit precision (the device adds in f16) errs by about 1e-3 relative
// in an f32 GRU: far above the f32 roundings, but within a bound that adds up every route
// through ten steps of four-way fan-out with absolute values (10^5 times the error there). The
// bound through the graph's Jacobian (harness/graph/composite_bound.cpp) catches it; node checks do not
// see gradient sums.
TEST(Composites, AGradientSumInSixteenBitPrecisionFailsEndToEnd) {
  NiceMock<MockQueue> q;
  ON_CALL(q, forward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        exact_forward(call, in, out);
        if (call.case_id.find("gradient sum") == std::string::npos) return;
        HostTensor& sum = host(out);
        for (std::int64_t i = 0; i < sum.numel(); ++i) sum.set(i, round_to(DType::f16, sum.get(i)));
      }));
  const auto checks = run_on(composite("gru(seq=10,batch=8,input=16,hidden=32,dtype=f32)"), q);
  EXPECT_EQ(part(checks, "grad h0").verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "grad W_hn").verdict, Verdict::fail);
}

// A library whose GRU applies the reset gate to the state before the hidden matmul (Cho et al.;
// Keras reset_after=False) where the cuDNN form is declared. The harness composes the declared
// form from primitives, so the device here runs the other graph on the same leaves. Every node
// of it is right on its own: no node check can name this (the fused model below can); the
// end-to-end checks fail.
TEST(Composites, AGruWithTheResetGateBeforeTheMatmulFailsEndToEnd) {
  const Composite cudnn = make_composite(gru_declaration(10, 8, 16, 32, GruReset::after_matmul), DType::f32);
  const Composite cho = make_composite(gru_declaration(10, 8, 16, 32, GruReset::before_matmul), DType::f32);
  NiceMock<MockQueue> q;
  FakeBackend backend;
  const CompositeReference r = prepare_composite_reference(cudnn, kCompositeSeed);
  const DeviceGraph d = run_graph_on_device(cho, backend, q, r.leaves);
  const auto checks = check_end_to_end(cudnn, "fake", composite_tolerance(cudnn, backend),
                                       r.bounded(cudnn, backend.info().math, false), d, kCompositeSeed);
  for (const auto& c : checks) EXPECT_EQ(c.verdict, Verdict::fail) << c.part << " margin " << c.metrics.margin;
}

// The same library as a fused cell: in the fused model every step is one gru_cell node, and the
// device's cell applies the reset gate before the hidden matmul, forward and VJP consistently.
// The end-to-end checks fail, and the node checks name the cell at every step.
TEST(Composites, AFusedGruCellWithTheResetGateBeforeTheMatmulFailsAtItsNode) {
  NiceMock<MockQueue> q;
  ON_CALL(q, forward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        if (call.kind == OpKind::gru_cell) return testing::reset_before_forward(call, in, out);
        exact_forward(call, in, out);
      }));
  ON_CALL(q, backward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                               const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
        if (call.kind == OpKind::gru_cell) return testing::reset_before_backward(call, in, out, dout, grads);
        exact_backward(call, in, out, dout, grads);
      }));
  const Composite& c = composite("gru(seq=10,batch=8,input=16,hidden=32,cell=fused,dtype=f32)");
  const auto checks = run_on(c, q);
  for (const char* p : {"loss", "grad x", "grad h0", "grad W_ih", "grad W_hh", "grad b_ih", "grad b_hh"})
    EXPECT_EQ(part(checks, p).verdict, Verdict::fail) << p;
  EXPECT_EQ(part(checks, "output " + c.decl.output).verdict, Verdict::fail);
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i) {
    if (c.decl.nodes[i].op != OpKind::gru_cell) continue;
    const std::string node = "node " + std::to_string(i) + " gru_cell (" + c.decl.nodes[i].layer + ")";
    EXPECT_EQ(part(checks, node + " forward").verdict, Verdict::fail) << node;
    EXPECT_EQ(part(checks, node + " backward input 3").verdict, Verdict::fail) << node;  // W_hh
  }
  EXPECT_EQ(part(checks, "node 2 gru_cell (step 0) forward").verdict, Verdict::fail);
}

// The KAN incident itself: a single-layer KAN's input gradient silently zero. Here the spline
// path's input gradient is dropped; the base path through silu still carries one.
TEST(Composites, AKanWhoseSplineInputGradientIsZeroFailsAtTheSplineNode) {
  NiceMock<MockQueue> q;
  backward_of(q, OpKind::bspline_basis, [](const OpCall&, std::span<DeviceBuffer* const> g) {
    HostTensor& dx = host(*g[0]);
    for (std::int64_t i = 0; i < dx.numel(); ++i) dx.set(i, 0.0);
  });
  const auto checks = run_on(composite("kan(widths=8x4,order=3,grid=5,batch=7,dtype=f32)"), q);
  EXPECT_EQ(part(checks, "grad x").verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "node 2 bspline_basis (layer 1) backward input 0").verdict, Verdict::fail);
  EXPECT_EQ(part(checks, "grad C1").verdict, Verdict::pass);
}

// Gradients of d loss = 0 must be exactly zero: a bias gradient that starts from a tiny
// constant instead of zero is far below every bound, and fails only this expectation.
TEST(Composites, AGradientThatIsNotZeroForAZeroLossGradientFails) {
  NiceMock<MockQueue> q;
  backward_of(q, OpKind::linear, [](const OpCall&, std::span<DeviceBuffer* const> g) {
    HostTensor& db = host(*g[2]);
    for (std::int64_t i = 0; i < db.numel(); ++i) db.set(i, db.get(i) + 1e-30);
  });
  const auto checks = run_on(composite("kan(widths=8x4,order=3,grid=5,batch=7,dtype=f32)"), q);
  EXPECT_EQ(part(checks, "grad b1").verdict, Verdict::pass);
  EXPECT_EQ(part(checks, "grads at d loss = 0").verdict, Verdict::fail);
}

// A kernel with state across calls gives another gradient the second time the graph runs.
TEST(Composites, AGradientThatChangesFromRunToRunFails) {
  NiceMock<MockQueue> q;
  auto calls = std::make_shared<int>(0);
  backward_of(q, OpKind::matmul, [calls](const OpCall&, std::span<DeviceBuffer* const> g) {
    HostTensor& dc = host(*g[1]);
    dc.set(0, dc.get(0) * (1 + 1e-6 * ++*calls));
  });
  const auto checks = run_on(composite("kan(widths=8x4,order=3,grid=5,batch=7,dtype=f64)"), q);
  EXPECT_THAT(part(checks, "grad C1").reason, ::testing::HasSubstr("second backward of the graph differs"));
}

TEST(Composites, IdsSelectByModelNameAndFilter) {
  Selection sel;
  sel.ops = {"gru"};
  const auto gru = select_subjects(sel);
  ASSERT_EQ(gru.size(), 4u);
  EXPECT_EQ(gru[0]->id(), "gru(seq=10,batch=8,input=16,hidden=32,dtype=f32)");
  EXPECT_EQ(gru[2]->id(), "gru(seq=10,batch=8,input=16,hidden=32,cell=fused,dtype=f32)");
  EXPECT_EQ(gru[0]->kind(), SubjectKind::model);
  sel.ops = {"mlp"};
  sel.filter = "layers=1,batch=7,";
  EXPECT_EQ(select_subjects(sel).size(), 2u);
  EXPECT_TRUE(select_cases(sel).empty());
  sel.ops = {"train"};
  sel.filter = "";
  for (const Subject* s : select_subjects(sel)) EXPECT_EQ(s->kind(), SubjectKind::training) << s->id();
  sel.ops = {"no_such_model"};
  EXPECT_THROW(select_subjects(sel), UsageError);
}

}  // namespace
}  // namespace gp
