// Unit tests of the CPU backend: hand-computed forward values and gradients in f32 and f64,
// f16/bf16 storage, canary detection, supports() and the provider. Every op against the
// reference is the parity suite's work.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/cpu_buffer.hpp"
#include "core/error.hpp"

namespace gp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Attributes from a setter: with([](OpAttrs& a) { a.axis = 0; }).
template <typename Set>
OpAttrs with(Set set) {
  OpAttrs a;
  set(a);
  return a;
}

class CpuBackendTest : public ::testing::TestWithParam<DType> {
 protected:
  std::unique_ptr<Backend> backend = make_cpu_provider().discover({}).at(0).create();
  std::unique_ptr<Queue> queue = backend->create_queue();

  DType dtype() const { return GetParam(); }
  // Relative tolerance: a few units of roundoff of the case dtype.
  double tol() const { return 16 * unit_roundoff(dtype()); }

  static HostTensor tensor(DType t, Shape s, const std::vector<double>& values) {
    HostTensor h(t, std::move(s));
    EXPECT_EQ(static_cast<std::size_t>(h.numel()), values.size());
    for (std::size_t i = 0; i < values.size(); ++i) h.set(static_cast<std::int64_t>(i), values[i]);
    return h;
  }

  std::unique_ptr<DeviceBuffer> upload(const HostTensor& h) {
    auto b = backend->allocate(h.dtype(), h.shape());
    queue->upload(*b, h);
    return b;
  }

  std::vector<std::unique_ptr<DeviceBuffer>> upload_all(const OpCall& call, const std::vector<std::vector<double>>& v) {
    std::vector<std::unique_ptr<DeviceBuffer>> out;
    for (std::size_t k = 0; k < v.size(); ++k)
      out.push_back(upload(tensor(call.input_dtypes[k], call.input_shapes[k], v[k])));
    return out;
  }

  static std::vector<const DeviceBuffer*> raw(const std::vector<std::unique_ptr<DeviceBuffer>>& v) {
    std::vector<const DeviceBuffer*> r;
    for (auto& b : v) r.push_back(b.get());
    return r;
  }

  HostTensor forward(const OpCall& call, const std::vector<std::vector<double>>& inputs) {
    auto in = upload_all(call, inputs);
    auto out = backend->allocate(call.dtype, call.output_shape);
    queue->forward(call, raw(in), *out);
    queue->finish();
    return queue->download(*out);
  }

  // Gradient buffers start as NaN, so an element a kernel forgets to write shows up.
  std::vector<std::optional<HostTensor>> backward(const OpCall& call, const std::vector<std::vector<double>>& inputs,
                                                  const std::vector<double>& dout) {
    auto in = upload_all(call, inputs);
    auto out = backend->allocate(call.dtype, call.output_shape);
    queue->forward(call, raw(in), *out);
    auto dy = upload(tensor(call.dtype, call.output_shape, dout));
    std::vector<std::unique_ptr<DeviceBuffer>> grads;
    std::vector<DeviceBuffer*> slots;
    for (std::size_t k = 0; k < in.size(); ++k) {
      if (!input_is_differentiable(call.kind, static_cast<int>(k))) {
        grads.emplace_back();
        slots.push_back(nullptr);
        continue;
      }
      HostTensor poison(call.input_dtypes[k], call.input_shapes[k]);
      for (std::int64_t i = 0; i < poison.numel(); ++i) poison.set(i, kNaN);
      grads.push_back(upload(poison));
      slots.push_back(grads.back().get());
    }
    queue->backward(call, raw(in), *out, *dy, slots);
    std::vector<std::optional<HostTensor>> result;
    for (auto& g : grads) result.push_back(g ? std::optional(queue->download(*g)) : std::nullopt);
    return result;
  }

  void expect_values(const HostTensor& t, const std::vector<double>& expected, const std::string& what) {
    ASSERT_EQ(static_cast<std::size_t>(t.numel()), expected.size()) << what;
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(t.get(static_cast<std::int64_t>(i)), expected[i], tol() * std::max(1.0, std::abs(expected[i])))
          << what << " element " << i;
  }

  OpCall call(OpKind k, std::vector<Shape> shapes, OpAttrs attrs = {}) {
    return make_call(k, std::move(attrs), dtype(), std::move(shapes), std::string(op_name(k)) + "_test");
  }

  void TearDown() override { EXPECT_TRUE(backend->take_canary_violations().empty()); }
};

TEST_P(CpuBackendTest, ExpForwardAndBackward) {
  auto c = call(OpKind::exp, {Shape{4}});
  std::vector<double> x{0.0, 1.0, -1.0, 2.0};
  expect_values(forward(c, {x}), {1.0, M_E, 1 / M_E, M_E * M_E}, "exp");
  auto g = backward(c, {x}, {1.0, 2.0, 3.0, 0.5});
  expect_values(*g[0], {1.0, 2 * M_E, 3 / M_E, 0.5 * M_E * M_E}, "d exp");
}

TEST_P(CpuBackendTest, AddBroadcastBiasGradientIsBatchSum) {
  auto c = call(OpKind::add, {Shape{2, 3}, Shape{3}});
  std::vector<double> x{1, 2, 3, 4, 5, 6}, b{10, 20, 30};
  expect_values(forward(c, {x, b}), {11, 22, 33, 14, 25, 36}, "add");
  auto g = backward(c, {x, b}, {1, 2, 3, 4, 5, 6});
  expect_values(*g[0], {1, 2, 3, 4, 5, 6}, "d x");
  expect_values(*g[1], {5, 7, 9}, "d bias");
}

TEST_P(CpuBackendTest, DivAndMaximumGradients) {
  auto d = call(OpKind::div, {Shape{2}, Shape{2}});
  auto g = backward(d, {{3, -1}, {2, 4}}, {1, 1});
  expect_values(*g[0], {0.5, 0.25}, "d x of x/y");
  expect_values(*g[1], {-0.75, 1.0 / 16}, "d y of x/y = -x/y^2");
  auto m = call(OpKind::maximum, {Shape{3}, Shape{1}});
  g = backward(m, {{1, 5, -2}, {2}}, {1, 2, 4});
  expect_values(*g[0], {0, 2, 0}, "d x of maximum");
  expect_values(*g[1], {5}, "d y of maximum, summed over the broadcast");
}

// x = (0, ln 2, ln 3) gives softmax (1/6, 1/3, 1/2) exactly in exact arithmetic.
TEST_P(CpuBackendTest, SoftmaxForwardAndBackward) {
  auto c = call(OpKind::softmax, {Shape{2, 3}}, with([](OpAttrs& a) { a.axis = -1; }));
  std::vector<double> x{0, std::log(2.0), std::log(3.0), 5, 5 + std::log(2.0), 5 + std::log(3.0)};
  expect_values(forward(c, {x}), {1.0 / 6, 1.0 / 3, 0.5, 1.0 / 6, 1.0 / 3, 0.5}, "softmax");
  // dx = y (g - sum g y); with g = e_0: (5/36, -1/18, -1/12)
  auto g = backward(c, {x}, {1, 0, 0, 0, 0, 0});
  expect_values(*g[0], {5.0 / 36, -1.0 / 18, -1.0 / 12, 0, 0, 0}, "d softmax");
}

TEST_P(CpuBackendTest, SoftmaxOverLeadingAxis) {
  auto c = call(OpKind::softmax, {Shape{3, 2}}, with([](OpAttrs& a) { a.axis = 0; }));
  std::vector<double> x{0, 1, std::log(2.0), 1, std::log(3.0), 1};
  expect_values(forward(c, {x}), {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0.5, 1.0 / 3}, "softmax axis 0");
}

TEST_P(CpuBackendTest, MatmulForwardAndBackward) {
  auto c = call(OpKind::matmul, {Shape{2, 3}, Shape{3, 2}});
  std::vector<double> a{1, 2, 3, 4, 5, 6}, b{7, 8, 9, 10, 11, 12};
  expect_values(forward(c, {a, b}), {58, 64, 139, 154}, "matmul");
  auto g = backward(c, {a, b}, {1, 1, 1, 1});
  expect_values(*g[0], {15, 19, 23, 15, 19, 23}, "d a = G b^T");
  expect_values(*g[1], {5, 5, 7, 7, 9, 9}, "d b = a^T G");
}

TEST_P(CpuBackendTest, LinearBiasAndWeightGradients) {
  auto c = call(OpKind::linear, {Shape{2, 2}, Shape{1, 2}, Shape{1}});
  auto g = backward(c, {{1, 2, 3, 4}, {10, 100}, {0.5}}, {1, 2});
  expect_values(*g[0], {10, 100, 20, 200}, "d x = G W");
  expect_values(*g[1], {7, 10}, "d W = G^T x");
  expect_values(*g[2], {3}, "d b = column sums of G");
  expect_values(forward(c, {{1, 2, 3, 4}, {10, 100}, {0.5}}), {210.5, 430.5}, "linear");
}

// Rows with mean 0 / 4 and population variance 1 (eps 0): xhat is exactly +-1.
TEST_P(CpuBackendTest, LayerNormGradients) {
  auto c = call(OpKind::layer_norm, {Shape{2, 4}, Shape{4}, Shape{4}}, with([](OpAttrs& a) { a.eps = 0.0; }));
  std::vector<double> x{1, -1, 1, -1, 3, 5, 3, 5}, w{1, 2, 3, 4}, b{0.5, 0, 0, 0};
  expect_values(forward(c, {x, w, b}), {1.5, -2, 3, -4, -0.5, 2, -3, 4}, "layer_norm");
  auto g = backward(c, {x, w, b}, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_values(*g[1], {-4, 4, -4, 4}, "d w = sum g xhat");
  expect_values(*g[2], {6, 8, 10, 12}, "d b = sum g");
  // row 0: h = g w = (1,4,9,16), mean 7.5, mean(h xhat) = -2.5 -> h - 7.5 + 2.5 xhat
  EXPECT_NEAR(g[0]->get(0), -4, tol() * 4);
  EXPECT_NEAR(g[0]->get(1), -6, tol() * 6);
  EXPECT_NEAR(g[0]->get(2), 4, tol() * 4);
  EXPECT_NEAR(g[0]->get(3), 6, tol() * 6);
}

TEST_P(CpuBackendTest, SliceGradientScattersIntoZeros) {
  auto c = call(OpKind::slice, {Shape{7}}, with([](OpAttrs& a) {
                  a.axis = 0;
                  a.start = 1;
                  a.stop = 6;
                  a.step = 2;
                }));
  std::vector<double> x{0, 1, 2, 3, 4, 5, 6};
  expect_values(forward(c, {x}), {1, 3, 5}, "slice");
  auto g = backward(c, {x}, {10, 20, 30});
  expect_values(*g[0], {0, 10, 0, 20, 0, 30, 0}, "d slice");
}

TEST_P(CpuBackendTest, ConcatSplitsAndTransposeReturns) {
  auto c = call(OpKind::concat, {Shape{2, 1}, Shape{2, 2}}, with([](OpAttrs& a) { a.axis = 1; }));
  expect_values(forward(c, {{1, 2}, {3, 4, 5, 6}}), {1, 3, 4, 2, 5, 6}, "concat");
  auto g = backward(c, {{1, 2}, {3, 4, 5, 6}}, {10, 11, 12, 13, 14, 15});
  expect_values(*g[0], {10, 13}, "d first");
  expect_values(*g[1], {11, 12, 14, 15}, "d second");
  auto t = call(OpKind::transpose, {Shape{2, 2, 3}});
  std::vector<double> x{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  expect_values(forward(t, {x}), {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}, "transpose");
  expect_values(*backward(t, {x}, {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11})[0], x, "d transpose");
}

TEST_P(CpuBackendTest, MaxRoutesGradientToArgmax) {
  auto c = call(OpKind::max, {Shape{2, 3}}, with([](OpAttrs& a) {
                  a.axis = 1;
                  a.keepdim = true;
                }));
  std::vector<double> x{1, 7, 3, 9, -1, 4};
  expect_values(forward(c, {x}), {7, 9}, "max");
  expect_values(*backward(c, {x}, {2, 3})[0], {0, 2, 0, 3, 0, 0}, "d max");
}

TEST_P(CpuBackendTest, VarianceAndLogsumexp) {
  auto v = call(OpKind::variance, {Shape{4}}, with([](OpAttrs& a) {
                  a.axis = 0;
                  a.correction = 1;
                }));
  std::vector<double> x{1, 2, 3, 6};  // mean 3, squared deviations 4+1+0+9 = 14
  expect_values(forward(v, {x}), {14.0 / 3}, "variance");
  expect_values(*backward(v, {x}, {3})[0], {-4, -2, 0, 6}, "d variance = 2 g (x - mean)/3");
  auto l = call(OpKind::logsumexp, {Shape{3}}, with([](OpAttrs& a) { a.axis = 0; }));
  std::vector<double> z{0, std::log(2.0), std::log(3.0)};
  expect_values(forward(l, {z}), {std::log(6.0)}, "logsumexp");
  expect_values(*backward(l, {z}, {6})[0], {1, 2, 3}, "d logsumexp = g softmax");
}

// Rows (0, ln2, ln3) -> softmax (1/6, 1/3, 1/2). Targets 2 and 0: loss = (ln 2 + ln 6) / 2.
TEST_P(CpuBackendTest, CrossEntropyLogitsGradient) {
  auto c = call(OpKind::cross_entropy, {Shape{2, 3}, Shape{2}});
  std::vector<double> logits{0, std::log(2.0), std::log(3.0), 0, std::log(2.0), std::log(3.0)};
  expect_values(forward(c, {logits, {2, 0}}), {std::log(12.0) / 2}, "cross_entropy");
  auto g = backward(c, {logits, {2, 0}}, {1});
  ASSERT_FALSE(g[1].has_value());
  expect_values(*g[0], {1.0 / 12, 1.0 / 6, -0.25, -5.0 / 12, 1.0 / 6, 0.25}, "d logits");
}

TEST_P(CpuBackendTest, CrossEntropyBadTargetNamesTheCase) {
  auto c = call(OpKind::cross_entropy, {Shape{2, 3}, Shape{2}});
  try {
    forward(c, {{0, 0, 0, 0, 0, 0}, {1, 3}});
    FAIL() << "target 3 of 3 classes was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cross_entropy_test"), std::string::npos) << e.what();
  }
}

TEST_P(CpuBackendTest, LossesAndChosenGradients) {
  auto m = call(OpKind::mse_loss, {Shape{2}, Shape{2}}, with([](OpAttrs& a) { a.reduction = LossReduction::mean; }));
  auto g = backward(m, {{1, 4}, {3, 1}}, {2});
  expect_values(forward(m, {{1, 4}, {3, 1}}), {6.5}, "mse");
  expect_values(*g[0], {-4, 6}, "d a = 2 g (a-b)/n");
  expect_values(*g[1], {4, -6}, "d b");
  auto ste = call(OpKind::ste_round, {Shape{3}});
  expect_values(forward(ste, {{0.5, 1.5, -2.4}}), {0, 2, -2}, "round half to even");
  expect_values(*backward(ste, {{0.5, 1.5, -2.4}}, {1, 2, 3})[0], {1, 2, 3}, "straight-through");
  auto gate = call(OpKind::ste_hardtanh_gate, {Shape{3}});
  expect_values(*backward(gate, {{0.5, -1.5, -0.2}}, {1, 2, 3})[0], {1, 0, 3}, "hardtanh surrogate");
  auto gum = call(OpKind::gumbel_softmax, {Shape{3}, Shape{3}}, with([](OpAttrs& a) { a.tau = 0.5; }));
  std::vector<double> l{0, std::log(2.0) / 2, 0}, noise{0, 0, std::log(3.0) / 2};
  expect_values(forward(gum, {l, noise}), {1.0 / 6, 1.0 / 3, 0.5}, "gumbel_softmax");
  g = backward(gum, {l, noise}, {1, 0, 0});
  ASSERT_FALSE(g[1].has_value());
  expect_values(*g[0], {2 * 5.0 / 36, -2.0 / 18, -2.0 / 12}, "d logits = softmax VJP / tau");
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, CpuBackendTest, ::testing::Values(DType::f32, DType::f64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

class CpuBackendPlain : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> backend = std::make_unique<cpu::CpuBackend>();
  std::unique_ptr<Queue> queue = backend->create_queue();
};

TEST_F(CpuBackendPlain, SixteenBitStorageRoundTripsAndRoundsOnStore) {
  for (DType t : {DType::f16, DType::bf16}) {
    HostTensor x(t, Shape{5});
    std::vector<double> values{0.1, -2.75, 3.3, 1e-3, 7.0};
    for (std::int64_t i = 0; i < 5; ++i) x.set(i, values[static_cast<std::size_t>(i)]);
    auto buf = backend->allocate(t, x.shape());
    queue->upload(*buf, x);
    HostTensor back = queue->download(*buf);
    ASSERT_EQ(std::memcmp(back.data(), x.data(), x.bytes()), 0) << dtype_name(t);

    auto c = make_call(OpKind::exp, {}, t, {Shape{5}}, "exp16");
    auto y = backend->allocate(t, c.output_shape);
    const DeviceBuffer* in[] = {buf.get()};
    queue->forward(c, in, *y);
    HostTensor out = queue->download(*y);
    for (std::int64_t i = 0; i < 5; ++i) {
      float e = std::exp(static_cast<float>(x.get(i)));
      double expected = t == DType::f16 ? f16_to_double(f16_from_float(e)) : bf16_to_double(bf16_from_float(e));
      EXPECT_EQ(out.get(i), expected) << dtype_name(t) << " element " << i;
    }
  }
}

TEST_F(CpuBackendPlain, CanaryCatchesWritesOutsideTheBuffer) {
  auto c = make_call(OpKind::neg, {}, DType::f32, {Shape{3}}, "canary_case");
  HostTensor x(DType::f32, Shape{3});
  auto in = backend->allocate(DType::f32, x.shape());
  auto out = backend->allocate(DType::f32, x.shape());
  queue->upload(*in, x);
  const DeviceBuffer* inputs[] = {in.get()};
  queue->forward(c, inputs, *out);
  EXPECT_TRUE(backend->take_canary_violations().empty()) << "a clean run reported damage";

  // Play a buggy kernel: write two bytes past the end and one before the start of the output.
  auto* raw = dynamic_cast<cpu::CpuBuffer*>(out.get());
  ASSERT_NE(raw, nullptr);
  raw->data()[raw->bytes()] = std::byte{0};
  raw->data()[raw->bytes() + 5] = std::byte{0};
  raw->data()[-3] = std::byte{0};
  queue->forward(c, inputs, *out);
  auto found = backend->take_canary_violations();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("canary_case"), std::string::npos) << found[0];
  EXPECT_NE(found[0].find("output"), std::string::npos) << found[0];
  EXPECT_NE(found[0].find("after the end, at offsets +0..+5"), std::string::npos) << found[0];
  EXPECT_NE(found[0].find("before the start, at offsets -3..-3"), std::string::npos) << found[0];
  // Reported once: the guards are re-armed.
  queue->forward(c, inputs, *out);
  EXPECT_TRUE(backend->take_canary_violations().empty());
}

TEST_F(CpuBackendPlain, SupportsRefusesWithAReason) {
  auto loss = make_call(OpKind::mse_loss, {}, DType::f16, {Shape{2, 2}, Shape{2, 2}}, "loss16");
  Support s = backend->supports(loss);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("unary, binary, reduction, rowwise and linalg families only"), std::string::npos) << s.reason;
  EXPECT_FALSE(backend->supports(make_call(OpKind::transpose, {}, DType::bf16, {Shape{3, 2}})).ok);
  EXPECT_TRUE(backend->supports(make_call(OpKind::softmax, {}, DType::bf16, {Shape{3}})).ok);
  EXPECT_TRUE(backend->supports(make_call(OpKind::add, {}, DType::f16, {Shape{3}, Shape{1}})).ok);
  EXPECT_TRUE(backend->supports(make_call(OpKind::ste_round, {}, DType::bf16, {Shape{3}})).ok);
  EXPECT_TRUE(backend->supports(make_call(OpKind::matmul, {}, DType::bf16, {Shape{2, 2}, Shape{2, 2}})).ok);
  // Running an unsupported call is an error naming the case, never a silent wrong result.
  auto a = backend->allocate(DType::f16, Shape{2, 2}), b = backend->allocate(DType::f16, Shape{2, 2});
  auto y = backend->allocate(DType::f16, Shape{});
  const DeviceBuffer* in[] = {a.get(), b.get()};
  try {
    queue->forward(loss, in, *y);
    FAIL() << "f16 mse_loss ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("loss16"), std::string::npos) << e.what();
  }
}

TEST_F(CpuBackendPlain, WrongBufferShapeIsAnError) {
  auto c = make_call(OpKind::exp, {}, DType::f32, {Shape{4}}, "shape_case");
  auto x = backend->allocate(DType::f32, Shape{5});
  auto y = backend->allocate(DType::f32, Shape{4});
  const DeviceBuffer* in[] = {x.get()};
  EXPECT_THROW(queue->forward(c, in, *y), Error);
}

// The contract: one backend shared by threads, one queue per thread. Every thread's results
// must be bit-identical to a single-threaded run, and the shared canary log must stay empty.
TEST_F(CpuBackendPlain, QueuesOnManyThreadsShareOneBackend) {
  auto c = make_call(OpKind::layer_norm, {}, DType::f32, {Shape{8, 33}, Shape{33}, Shape{33}}, "threads");
  std::vector<HostTensor> inputs;
  for (const Shape& s : c.input_shapes) {
    HostTensor h(DType::f32, s);
    for (std::int64_t i = 0; i < h.numel(); ++i) h.set(i, std::sin(0.37 * static_cast<double>(i + s.rank())));
    inputs.push_back(std::move(h));
  }
  auto run_once = [&](Queue& q) {
    std::vector<std::unique_ptr<DeviceBuffer>> in;
    std::vector<const DeviceBuffer*> raw;
    for (const auto& h : inputs) {
      in.push_back(backend->allocate(h.dtype(), h.shape()));
      q.upload(*in.back(), h);
      raw.push_back(in.back().get());
    }
    auto y = backend->allocate(DType::f32, c.output_shape);
    q.forward(c, raw, *y);
    return q.download(*y);
  };
  HostTensor expected = run_once(*queue);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      auto q = backend->create_queue();
      for (int i = 0; i < 50; ++i) {
        HostTensor got = run_once(*q);
        if (std::memcmp(got.data(), expected.data(), got.bytes()) != 0) ++mismatches;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_TRUE(backend->take_canary_violations().empty());
}

TEST(CpuProvider, DiscoversOneUsableDevice) {
  BackendProvider p = make_cpu_provider();
  EXPECT_EQ(p.name, "cpu");
  auto entries = p.discover({});
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_TRUE(entries[0].create);
  EXPECT_EQ(entries[0].info.backend, "cpu");
  EXPECT_FALSE(entries[0].info.name.empty());
  EXPECT_EQ(entries[0].info.driver.rfind("Eigen 3.", 0), 0u) << entries[0].info.driver;
  auto backend = entries[0].create();
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->info().dtypes.size(), 4u);
}

}  // namespace
}  // namespace gp
