// Tensor-train embedding models: the tt_embedding kernel form and the generic-primitives form
// compute the same embedding on the reference; a core gradient that keeps one row of repeated
// slices fails end to end and at the embedding node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "harness/graph/composite.hpp"
#include "harness/graph/composite_graph.hpp"
#include "support/fake_backend.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

constexpr std::uint64_t kTtSeed = 3;

using testing::composite;

// The generic form's leaves taken from the kernel form's draw by name; its one-hot leaves from
// the ids, as the harness derives them.
std::vector<ref::RefTensor> leaves_by_name(const Composite& from, const CompositeReference& r, const Composite& to) {
  std::vector<ref::RefTensor> out;
  for (const auto& l : to.decl.leaves) {
    if (const LeafDecl* same = from.leaf(l.name)) {
      out.push_back(r.exact.value.at(same->name));
      continue;
    }
    const ref::RefTensor& ids = r.exact.value.at(l.one_hot_of);
    ref::RefTensor hot;
    hot.shape = l.shape;
    hot.v.assign(static_cast<std::size_t>(l.shape.numel()), 0.0L);
    for (std::int64_t b = 0; b < l.shape[0]; ++b) {
      const auto digit = (static_cast<std::int64_t>(ids.v[static_cast<std::size_t>(b)]) / l.divisor) % l.shape[1];
      hot.v[static_cast<std::size_t>(b * l.shape[1] + digit)] = 1;
    }
    out.push_back(hot);
  }
  return out;
}

TEST(TtModels, TheKernelAndTheGenericFormAgreeOnTheReference) {
  for (const char* params : {"rank=4,batch=64", "rank=16,batch=64,ids=16"}) {
    const Composite& kernel = composite("tt(" + std::string(params) + ",form=kernel,dtype=f64)");
    const Composite& generic = composite("tt(" + std::string(params) + ",form=generic,dtype=f64)");
    const CompositeReference r = prepare_composite_reference(kernel, kTtSeed);
    const GraphTensors g = evaluate_graph(generic, leaves_by_name(kernel, r, generic), exact_node_ops());
    auto expect_near = [&](const ref::RefTensor& a, const ref::RefTensor& b, const std::string& what) {
      ASSERT_EQ(a.v.size(), b.v.size()) << what;
      long double worst = 0, scale = 0;
      for (std::size_t i = 0; i < a.v.size(); ++i) {
        worst = std::max(worst, std::fabs(a.v[i] - b.v[i]));
        scale = std::max(scale, std::fabs(a.v[i]));
      }
      EXPECT_GT(scale, 0) << what;
      EXPECT_LE(worst, 1e-16L * scale) << params << " " << what;
    };
    expect_near(r.exact.value.at(kernel.decl.output), g.value.at(generic.decl.output), "output");
    for (const char* leaf : {"G1", "G2", "G3", "W", "b"})
      expect_near(r.exact.grad.at(leaf), g.grad.at(leaf), std::string("grad ") + leaf);
  }
}

// A backward whose gradient of the second core keeps only the last batch row that selects each
// slice (a write where there should be a sum): repeated ids lose their contributions.
TEST(TtModels, ACoreGradientThatDropsRepeatedIdsFailsAtTheEmbeddingNode) {
  NiceMock<MockQueue> q;
  ON_CALL(q, backward)
      .WillByDefault(Invoke([](const OpCall& call, std::span<const DeviceBuffer* const> in, const DeviceBuffer& out,
                               const DeviceBuffer& dout, std::span<DeviceBuffer* const> grads) {
        exact_backward(call, in, out, dout, grads);
        if (call.kind != OpKind::tt_embedding || !grads[2]) return;
        const HostTensor& ids = host(*in[0]);
        const std::int64_t rows = ids.numel(), dim = dout.shape().numel() / rows;
        HostBuffer last(dout.dtype(), dout.shape());
        last.data = host(dout);
        std::set<std::int64_t> later;
        for (std::int64_t b = rows; b-- > 0;)
          if (!later.insert((static_cast<std::int64_t>(ids.get(b)) / 8) % 8).second)
            for (std::int64_t j = 0; j < dim; ++j) last.data.set(b * dim + j, 0.0);
        HostBuffer g2(grads[2]->dtype(), grads[2]->shape());
        DeviceBuffer* only_g2[] = {nullptr, nullptr, &g2, nullptr};
        exact_backward(call, in, out, last, only_g2);
        host(*grads[2]) = g2.data;
      }));
  FakeBackend backend;
  const Composite& c = composite("tt(rank=16,batch=64,ids=16,form=kernel,dtype=f32)");
  const CompositeReference r = prepare_composite_reference(c, kTtSeed);
  bool end_to_end = false, node = false;
  for (const auto& x : check_composite_on_backend(c, "fake", backend, q, r, kTtSeed)) {
    if (x.verdict != Verdict::fail) continue;
    end_to_end = end_to_end || x.part == "grad G2";
    node = node || x.part.find("tt_embedding (embedding) backward input 2") != std::string::npos;
    EXPECT_NE(x.part, "grad G1");
  }
  EXPECT_TRUE(end_to_end);
  EXPECT_TRUE(node);
}

}  // namespace
}  // namespace gp
