// Vulkan backend on whatever device the machine has (lavapipe in CI), validation layer ON:
// hand-computed values per op family in f32 / f64 / f16 / bf16, canaries, the pipeline cache,
// device loss and error mapping; every test ends with zero validation messages.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "backends/vulkan/vk_errors.hpp"
#include "core/error.hpp"
#include "vulkan_test_util.hpp"

namespace gp {
namespace {

using vktest::run;
using vktest::tensor;

class VulkanBackendTest : public vktest::BackendTest {
 protected:
  VulkanBackendTest() : BackendTest("unit") {}
};

void expect_near_all(const HostTensor& t, const std::vector<double>& want, double rel, const char* what) {
  ASSERT_EQ(t.numel(), static_cast<std::int64_t>(want.size())) << what;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    double w = want[static_cast<std::size_t>(i)];
    EXPECT_NEAR(t.get(i), w, rel * (std::abs(w) + 1e-300) + 1e-300) << what << " element " << i;
  }
}

TEST_F(VulkanBackendTest, ValidationLayerIsOnAndDeviceDescribed) {
  EXPECT_TRUE(backend_->validation_enabled());
  EXPECT_EQ(backend_->info().backend, "vulkan");
  EXPECT_FALSE(backend_->info().name.empty());
  EXPECT_FALSE(backend_->info().dtypes.empty());
}

TEST_F(VulkanBackendTest, UnaryF32MatchesLibm) {
  std::vector<double> x = {-2.5, -0.75, 0.3, 1.25, 3.0};
  struct Case {
    OpKind k;
    double (*f)(double);
    double (*df)(double);
  } cases[] = {
      {OpKind::exp, [](double v) { return std::exp(v); }, [](double v) { return std::exp(v); }},
      {OpKind::tanh, [](double v) { return std::tanh(v); }, [](double v) { return 1 - std::tanh(v) * std::tanh(v); }},
      {OpKind::sin, [](double v) { return std::sin(v); }, [](double v) { return std::cos(v); }},
      {OpKind::expm1, [](double v) { return std::expm1(v); }, [](double v) { return std::exp(v); }},
      {OpKind::relu, [](double v) { return v > 0 ? v : 0.0; }, [](double v) { return v > 0 ? 1.0 : 0.0; }},
  };
  for (const auto& c : cases) {
    auto r = run(*backend_, call(c.k, DType::f32, {{5}}), {tensor(DType::f32, {5}, x)});
    std::vector<double> y, dy;
    for (double v : x) y.push_back(c.f(static_cast<float>(v))), dy.push_back(c.df(static_cast<float>(v)));
    expect_near_all(r.out, y, 2e-6, op_name(c.k).data());
    expect_near_all(r.grads[0], dy, 2e-6, op_name(c.k).data());
  }
}

TEST_F(VulkanBackendTest, UnaryF64UsesFullPrecisionMath) {
  std::vector<double> x = {0.11, 0.5, 1.7, 3.2, 9.5};
  OpAttrs a;
  a.p = 3.7;
  auto r = run(*backend_, call(OpKind::pow_scalar, DType::f64, {{5}}, a), {tensor(DType::f64, {5}, x)});
  std::vector<double> y, dy;
  for (double v : x) y.push_back(std::pow(v, 3.7)), dy.push_back(3.7 * std::pow(v, 2.7));
  expect_near_all(r.out, y, 1e-14, "pow_scalar f64");
  expect_near_all(r.grads[0], dy, 1e-14, "pow_scalar f64 grad");

  std::vector<double> s = {-19.5, -3.1, -0.2, 1.0, 2.9, 17.25};
  auto rs = run(*backend_, call(OpKind::cos, DType::f64, {{6}}), {tensor(DType::f64, {6}, s)});
  std::vector<double> cy, cdy;
  for (double v : s) cy.push_back(std::cos(v)), cdy.push_back(-std::sin(v));
  expect_near_all(rs.out, cy, 1e-14, "cos f64");
  expect_near_all(rs.grads[0], cdy, 1e-14, "cos f64 grad");

  std::vector<double> gx = {-5.9, -2.2, -0.4, 0.7, 3.3};
  auto rg = run(*backend_, call(OpKind::gelu, DType::f64, {{5}}), {tensor(DType::f64, {5}, gx)});
  std::vector<double> gy;
  for (double v : gx) gy.push_back(v * 0.5 * std::erfc(-v / std::sqrt(2.0)));
  expect_near_all(rg.out, gy, 1e-13, "gelu erf f64");
}

TEST_F(VulkanBackendTest, SixteenBitStorageRoundsOnce) {
  std::vector<double> x = {-3.0, -0.5, 0.1, 1.0, 2.5, 7.0, 0.001};
  for (DType dt : {DType::f16, DType::bf16}) {
    OpCall c = call(OpKind::sigmoid, dt, {{7}});
    if (!backend_->supports(c).ok) GTEST_SKIP() << backend_->supports(c).reason;
    HostTensor in = tensor(dt, {7}, x);
    auto r = run(*backend_, c, {in});
    for (std::int64_t i = 0; i < 7; ++i) {
      double xi = in.get(i), want = 1.0 / (1.0 + std::exp(-xi));
      EXPECT_LE(ulp_distance(dt, r.out.get(i), round_to(dt, want)), 1.0) << dtype_name(dt) << " element " << i;
    }
  }
}

TEST_F(VulkanBackendTest, BroadcastGradientsAreSummed) {
  // [3,4] + [4] (bias add) and [2,1] * [1,3]
  std::vector<double> a(12), b = {1, 2, 3, 4};
  for (int i = 0; i < 12; ++i) a[i] = 0.5 * i;
  HostTensor g = tensor(DType::f32, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  auto r = run(*backend_, call(OpKind::add, DType::f32, {{3, 4}, {4}}),
               {tensor(DType::f32, {3, 4}, a), tensor(DType::f32, {4}, b)}, &g);
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(r.out.get(i), a[i] + b[i % 4]);
  expect_near_all(r.grads[1], {15, 18, 21, 24}, 1e-7, "bias grad");

  HostTensor gb = tensor(DType::f64, {64, 40}, std::vector<double>(64 * 40, 0.5));  // column tiles, 1 chunk
  auto rb = run(*backend_, call(OpKind::sub, DType::f64, {{64, 40}, {40}}),
                {tensor(DType::f64, {64, 40}, std::vector<double>(64 * 40, 1.0)),
                 tensor(DType::f64, {40}, std::vector<double>(40, 2.0))},
                &gb);
  expect_near_all(rb.grads[1], std::vector<double>(40, -32.0), 1e-15, "sub broadcast grad");

  // 1000 rows: the column tiles split the rows into 16 chunks and a second pass adds them.
  // g[r][c] = r + c / 64 is exact in f64, and so are the sums: 499500 + 1000 c / 64.
  std::vector<double> gv(1000 * 40);
  for (int r = 0; r < 1000; ++r)
    for (int c = 0; c < 40; ++c) gv[r * 40 + c] = r + c / 64.0;
  HostTensor gc = tensor(DType::f64, {1000, 40}, gv);
  auto rc = run(*backend_, call(OpKind::add, DType::f64, {{1000, 40}, {40}}),
                {tensor(DType::f64, {1000, 40}, std::vector<double>(1000 * 40, 1.0)),
                 tensor(DType::f64, {40}, std::vector<double>(40, 2.0))},
                &gc);
  std::vector<double> want(40);
  for (int c = 0; c < 40; ++c) want[c] = 499500 + 1000 * c / 64.0;
  expect_near_all(rc.grads[1], want, 0, "bias grad over 16 chunks");
  expect_near_all(rc.grads[0], gv, 0, "same-shape grad");

  // Innermost dim reduced ([40,64] * [40,1]): one work group per gradient element.
  auto rr = run(*backend_, call(OpKind::mul, DType::f64, {{40, 64}, {40, 1}}),
                {tensor(DType::f64, {40, 64}, std::vector<double>(40 * 64, 0.25)),
                 tensor(DType::f64, {40, 1}, std::vector<double>(40, 3.0))});
  expect_near_all(rr.grads[1], std::vector<double>(40, 16.0), 0, "row-sum grad");

  auto rm = run(*backend_, call(OpKind::mul, DType::f32, {{2, 1}, {1, 3}}),
                {tensor(DType::f32, {2, 1}, {2, 3}), tensor(DType::f32, {1, 3}, {1, 10, 100})});
  expect_near_all(rm.out, {2, 20, 200, 3, 30, 300}, 1e-7, "outer product");
  expect_near_all(rm.grads[0], {111, 111}, 1e-7, "da");
  expect_near_all(rm.grads[1], {5, 5, 5}, 1e-7, "db");
}

TEST_F(VulkanBackendTest, ReductionsOverMiddleAxis) {
  // x [2,3,2], reduce axis 1
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13};
  OpAttrs a;
  a.axis = 1;
  auto rs = run(*backend_, call(OpKind::sum, DType::f32, {{2, 3, 2}}, a), {tensor(DType::f32, {2, 3, 2}, x)});
  expect_near_all(rs.out, {9, 12, 27, 31}, 1e-7, "sum");
  auto rmax = run(*backend_, call(OpKind::max, DType::f32, {{2, 3, 2}}, a), {tensor(DType::f32, {2, 3, 2}, x)});
  expect_near_all(rmax.out, {5, 6, 11, 13}, 0, "max");
  expect_near_all(rmax.grads[0], {0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1}, 0, "max grad");
  a.correction = 1;
  auto rv = run(*backend_, call(OpKind::variance, DType::f64, {{2, 3, 2}}, a), {tensor(DType::f64, {2, 3, 2}, x)});
  expect_near_all(rv.out, {4, 4, 4, 6.333333333333333}, 1e-14, "variance");
  expect_near_all(rv.grads[0], {-2, -2, 0, 0, 2, 2, -2, -7.0 / 3, 0, -1.0 / 3, 2, 8.0 / 3}, 1e-14, "variance grad");
}

TEST_F(VulkanBackendTest, SoftmaxAndLogSoftmaxRows) {
  std::vector<double> x = {0.1, 0.2, 0.7, -1.0, 2.0, 0.5};
  HostTensor g = tensor(DType::f64, {2, 3}, {1, 0, 0, 0, 0, 1});
  auto r = run(*backend_, call(OpKind::softmax, DType::f64, {{2, 3}}), {tensor(DType::f64, {2, 3}, x)}, &g);
  for (int row = 0; row < 2; ++row) {
    double m = 0, s = 0;
    for (int j = 0; j < 3; ++j) s += std::exp(x[row * 3 + j]);
    (void)m;
    for (int j = 0; j < 3; ++j) {
      double p = std::exp(x[row * 3 + j]) / s;
      EXPECT_NEAR(r.out.get(row * 3 + j), p, 1e-15);
      int hot = row == 0 ? 0 : 2;
      double phot = std::exp(x[row * 3 + hot]) / s;
      EXPECT_NEAR(r.grads[0].get(row * 3 + j), p * ((j == hot) - phot), 1e-15);
    }
  }
}

TEST_F(VulkanBackendTest, LayerNormMatchesFiniteDifferences) {
  std::vector<double> x = {0.3, -1.2, 2.0, 0.7, 1.1, 0.0, -0.4, 0.9};
  std::vector<double> w = {1.5, -0.5, 2.0, 1.0}, b = {0.1, 0.2, 0.3, 0.4};
  OpCall c = call(OpKind::layer_norm, DType::f64, {{2, 4}, {4}, {4}});
  HostTensor g = tensor(DType::f64, {2, 4}, {0.3, -0.1, 0.5, 1.0, -0.7, 0.2, 0.4, 0.6});
  auto r =
      run(*backend_, c, {tensor(DType::f64, {2, 4}, x), tensor(DType::f64, {4}, w), tensor(DType::f64, {4}, b)}, &g);
  auto loss = [&](const std::vector<double>& xs, const std::vector<double>& ws, const std::vector<double>& bs) {
    double L = 0;
    for (int row = 0; row < 2; ++row) {
      double mu = 0, var = 0;
      for (int j = 0; j < 4; ++j) mu += xs[row * 4 + j] / 4;
      for (int j = 0; j < 4; ++j) var += (xs[row * 4 + j] - mu) * (xs[row * 4 + j] - mu) / 4;
      for (int j = 0; j < 4; ++j)
        L += g.get(row * 4 + j) * ((xs[row * 4 + j] - mu) / std::sqrt(var + 1e-5) * ws[j] + bs[j]);
    }
    return L;
  };
  const double h = 1e-6;
  for (int i = 0; i < 8; ++i) {
    auto xp = x, xm = x;
    xp[i] += h, xm[i] -= h;
    EXPECT_NEAR(r.grads[0].get(i), (loss(xp, w, b) - loss(xm, w, b)) / (2 * h), 1e-7) << "dx " << i;
  }
  for (int j = 0; j < 4; ++j) {
    auto wp = w, wm = w, bp = b, bm = b;
    wp[j] += h, wm[j] -= h, bp[j] += h, bm[j] -= h;
    EXPECT_NEAR(r.grads[1].get(j), (loss(x, wp, b) - loss(x, wm, b)) / (2 * h), 1e-7) << "dw " << j;
    EXPECT_NEAR(r.grads[2].get(j), (loss(x, w, bp) - loss(x, w, bm)) / (2 * h), 1e-7) << "db " << j;
  }
}

TEST_F(VulkanBackendTest, MatmulLinearAndBatched) {
  auto r = run(*backend_, call(OpKind::matmul, DType::f32, {{2, 3}, {3, 2}}),
               {tensor(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}), tensor(DType::f32, {3, 2}, {7, 8, 9, 10, 11, 12})});
  expect_near_all(r.out, {58, 64, 139, 154}, 1e-7, "matmul");
  expect_near_all(r.grads[0], {15, 19, 23, 15, 19, 23}, 1e-7, "dA = 1 B^T");
  expect_near_all(r.grads[1], {5, 5, 7, 7, 9, 9}, 1e-7, "dB = A^T 1");

  auto rl = run(*backend_, call(OpKind::linear, DType::f64, {{2, 3}, {2, 3}, {2}}),
                {tensor(DType::f64, {2, 3}, {1, 2, 3, 4, 5, 6}), tensor(DType::f64, {2, 3}, {1, 0, -1, 2, 1, 0}),
                 tensor(DType::f64, {2}, {0.5, -0.5})});
  expect_near_all(rl.out, {-1.5, 3.5, -1.5, 12.5}, 1e-15, "linear");
  expect_near_all(rl.grads[0], {3, 1, -1, 3, 1, -1}, 1e-15, "dx");
  expect_near_all(rl.grads[1], {5, 7, 9, 5, 7, 9}, 1e-15, "dW");
  expect_near_all(rl.grads[2], {2, 2}, 1e-15, "db");

  // batched, sizes not multiples of the 16x16 tile
  const int B = 3, M = 17, K = 33, N = 5;
  std::vector<double> a(B * M * K), bm(B * K * N);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.1 * i);
  for (std::size_t i = 0; i < bm.size(); ++i) bm[i] = std::cos(0.07 * i);
  auto rb = run(*backend_, call(OpKind::matmul, DType::f64, {{B, M, K}, {B, K, N}}),
                {tensor(DType::f64, {B, M, K}, a), tensor(DType::f64, {B, K, N}, bm)});
  for (int bb = 0; bb < B; ++bb)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += a[(bb * M + i) * K + k] * bm[(bb * K + k) * N + j];
        EXPECT_NEAR(rb.out.get((bb * M + i) * N + j), s, 1e-13);
      }
}

TEST_F(VulkanBackendTest, LayoutOps) {
  auto rt =
      run(*backend_, call(OpKind::transpose, DType::f32, {{2, 3}}), {tensor(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  expect_near_all(rt.out, {1, 4, 2, 5, 3, 6}, 0, "transpose");
  OpAttrs ca;
  ca.axis = 1;
  HostTensor g = tensor(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto rc = run(*backend_, call(OpKind::concat, DType::f32, {{2, 1}, {2, 2}}, ca),
                {tensor(DType::f32, {2, 1}, {7, 8}), tensor(DType::f32, {2, 2}, {1, 2, 3, 4})}, &g);
  expect_near_all(rc.out, {7, 1, 2, 8, 3, 4}, 0, "concat");
  expect_near_all(rc.grads[0], {1, 4}, 0, "concat grad 0");
  expect_near_all(rc.grads[1], {2, 3, 5, 6}, 0, "concat grad 1");
  OpAttrs sa;
  sa.axis = 0;
  sa.start = 1;
  sa.stop = 7;
  sa.step = 2;
  HostTensor gs = tensor(DType::f64, {3}, {10, 20, 30});
  auto rs =
      run(*backend_, call(OpKind::slice, DType::f64, {{7}}, sa), {tensor(DType::f64, {7}, {0, 1, 2, 3, 4, 5, 6})}, &gs);
  expect_near_all(rs.out, {1, 3, 5}, 0, "slice");
  expect_near_all(rs.grads[0], {0, 10, 0, 20, 0, 30, 0}, 0, "slice grad");
}

// Several tiles in both axes, partial tiles at both edges, a batch, and the 16-bit storage path:
// every element must land in its transposed place, forward and backward.
TEST_F(VulkanBackendTest, TransposeTilesCoverEdgesAndBatches) {
  const std::int64_t B = 3, R = 40, C = 70;
  for (DType dt : {DType::f32, DType::f16}) {
    std::vector<double> v(static_cast<std::size_t>(B * R * C)), gv(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 2000), gv[i] = -v[i];
    HostTensor g = tensor(dt, {B, C, R}, gv);
    auto r = run(*backend_, call(OpKind::transpose, dt, {{B, R, C}}), {tensor(dt, {B, R, C}, v)}, &g);
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t i = 0; i < R; ++i)
        for (std::int64_t j = 0; j < C; ++j) {
          ASSERT_EQ(r.out.get((b * C + j) * R + i), v[static_cast<std::size_t>((b * R + i) * C + j)])
              << dtype_name(dt) << " b=" << b << " i=" << i << " j=" << j;
          ASSERT_EQ(r.grads[0].get((b * R + i) * C + j), gv[static_cast<std::size_t>((b * C + j) * R + i)])
              << dtype_name(dt) << " gradient b=" << b << " i=" << i << " j=" << j;
        }
  }
}

TEST_F(VulkanBackendTest, Losses) {
  HostTensor logits = tensor(DType::f64, {2, 3}, {1, 2, 3, 1, 1, 1});
  HostTensor targets(DType::i32, {2});
  targets.as<std::int32_t>()[0] = 2;
  targets.as<std::int32_t>()[1] = 0;
  auto r = run(*backend_, call(OpKind::cross_entropy, DType::f64, {{2, 3}, {2}}), {logits, targets});
  double lse0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), lse1 = 1 + std::log(3.0);
  expect_near_all(r.out, {((lse0 - 3) + (lse1 - 1)) / 2}, 1e-15, "cross_entropy");
  EXPECT_NEAR(r.grads[0].get(2), 0.5 * (std::exp(3 - lse0) - 1), 1e-15);
  EXPECT_NEAR(r.grads[0].get(4), 0.5 / 3, 1e-15);

  auto rm = run(*backend_, call(OpKind::mse_loss, DType::f32, {{4}, {4}}),
                {tensor(DType::f32, {4}, {1, 2, 3, 4}), tensor(DType::f32, {4}, {0, 2, 5, 4})});
  expect_near_all(rm.out, {1.25}, 1e-7, "mse");
  expect_near_all(rm.grads[0], {0.5, 0, -1, 0}, 1e-7, "mse da");
  expect_near_all(rm.grads[1], {-0.5, 0, 1, 0}, 1e-7, "mse db");

  auto rb = run(*backend_, call(OpKind::bce_with_logits, DType::f64, {{2}, {2}}),
                {tensor(DType::f64, {2}, {0.5, -2.0}), tensor(DType::f64, {2}, {1.0, 0.25})});
  auto term = [](double x, double t) { return std::max(x, 0.0) - x * t + std::log1p(std::exp(-std::abs(x))); };
  expect_near_all(rb.out, {(term(0.5, 1.0) + term(-2.0, 0.25)) / 2}, 1e-15, "bce");
  expect_near_all(rb.grads[1], {-0.25, 1.0}, 1e-15, "bce dt");
}

// bench's arithmetic probe (shaders/probe.comp): element i is the sum of 8 chains that start at
// (i mod 7) + k/8 and take steps/8 links of x -> fma(x, 0.999999, 1e-6) each; a shader whose loop
// ran short would measure less work than bench counts. 300 elements: two work groups.
TEST_F(VulkanBackendTest, ArithmeticProbeRunsEveryLinkOfItsChains) {
  const int steps = 4096;
  auto queue = backend_->create_queue();
  for (DType dt : {DType::f32, DType::f64, DType::bf16}) {
    auto out = backend_->allocate(dt, Shape{300});
    ASSERT_TRUE(queue->arithmetic_probe(*out, steps));
    const HostTensor got = queue->download(*out);
    const double a = dt == DType::f64 ? 0.999999 : double(0.999999f), b = dt == DType::f64 ? 1e-6 : double(1e-6f);
    const double grow = std::pow(a, steps / 8), add = b * (1 - grow) / (1 - a);
    for (std::int64_t i = 0; i < 300; ++i) {
      double want = 0;
      for (int k = 0; k < 8; ++k) want += (double(i % 7) + k / 8.0) * grow + add;
      const double tol = dt == DType::bf16 ? 1e-2 : dt == DType::f32 ? 1e-4 : 1e-9;  // 512 roundings of f32
      ASSERT_NEAR(got.get(i), want, want * tol) << dtype_name(dt) << " " << i;
    }
  }
}

TEST_F(VulkanBackendTest, CanaryCatchesOutOfBoundsWrite) {
  OpCall c = call(OpKind::neg, DType::f32, {{7}});
  auto q = backend_->create_queue();
  auto in = backend_->allocate(DType::f32, {7});
  auto out = backend_->allocate(DType::f32, {7});
  q->upload(*in, tensor(DType::f32, {7}, {1, 2, 3, 4, 5, 6, 7}));
  const DeviceBuffer* ins[] = {in.get()};
  q->forward(c, ins, *out);
  q->finish();  // canaries are checked when the recorded calls have run
  EXPECT_TRUE(backend_->take_canary_violations().empty());
  vulkan_corrupt_canary_for_testing(*q, *out, 7 * 4 + 3, 0x42);  // 3 bytes past the end
  q->forward(c, ins, *out);
  q->finish();
  auto v = backend_->take_canary_violations();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("31..31"), std::string::npos) << v[0];
  EXPECT_NE(v[0].find("[neg]"), std::string::npos) << v[0];
  q->forward(c, ins, *out);  // re-armed: reported once
  q->finish();
  EXPECT_TRUE(backend_->take_canary_violations().empty());
}

// A buffer a recorded call reads may not return its memory to the pool before the call ran:
// destroying it submits first. Without that, the next buffer of its size reuses the memory and
// the call reads that buffer's values.
TEST_F(VulkanBackendTest, DestroyingABufferARecordedCallUsesRunsTheCallFirst) {
  const OpCall neg = call(OpKind::neg, DType::f32, {{64}});
  auto q = backend_->create_queue();
  auto in = backend_->allocate(DType::f32, {64});
  q->upload(*in, tensor(DType::f32, {64}, std::vector<double>(64, 2.0)));
  auto out = backend_->allocate(DType::f32, {64});
  const DeviceBuffer* ins[] = {in.get()};
  q->forward(neg, ins, *out);
  in.reset();
  auto reused = backend_->allocate(DType::f32, {64});
  q->upload(*reused, tensor(DType::f32, {64}, std::vector<double>(64, 5.0)));
  const HostTensor back = q->download(*out);
  for (std::int64_t i = 0; i < 64; ++i) ASSERT_EQ(back.get(i), -2.0) << i;
}

TEST_F(VulkanBackendTest, DeviceLostMakesBackendUnusable) {
  OpCall c = call(OpKind::neg, DType::f32, {{3}});
  auto q = backend_->create_queue();
  auto in = backend_->allocate(DType::f32, {3});
  auto out = backend_->allocate(DType::f32, {3});
  const DeviceBuffer* ins[] = {in.get()};
  backend_->mark_device_lost_for_testing("vkQueueSubmit");
  try {
    q->forward(c, ins, *out);
    FAIL() << "forward after device loss did not throw";
  } catch (const DeviceLost& e) {
    EXPECT_EQ(e.api_call(), "vkQueueSubmit");
    EXPECT_EQ(e.error_name(), "VK_ERROR_DEVICE_LOST");
    EXPECT_EQ(e.case_id(), "neg");
  }
  EXPECT_THROW(backend_->create_queue(), DeviceLost);
  EXPECT_THROW(backend_->allocate(DType::f32, {3}), DeviceLost);
  EXPECT_FALSE(backend_->supports(c).ok);
}

// The thread-safety contract: one queue per thread, one shared backend (and VkQueue). With the
// validation layer's threading checks on, overlapping unsynchronised use would be reported.
TEST_F(VulkanBackendTest, QueuesOnSeveralThreadsStayCorrect) {
  OpCall c = call(OpKind::softmax, DType::f32, {{8, 300}});
  std::vector<double> x(8 * 300);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * static_cast<double>(i));
  HostTensor in = tensor(DType::f32, {8, 300}, x);
  std::atomic<int> wrong{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      try {
        auto q = backend_->create_queue();
        auto a = backend_->allocate(DType::f32, {8, 300});
        auto out = backend_->allocate(DType::f32, {8, 300});
        q->upload(*a, in);
        const DeviceBuffer* ins[] = {a.get()};
        for (int it = 0; it < 25; ++it) {
          q->forward(c, ins, *out);
          HostTensor r = q->download(*out);
          double row = 0;
          for (int j = 0; j < 300; ++j) row += r.get(j);
          if (std::abs(row - 1.0) > 1e-5) ++wrong;
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}

TEST(VulkanErrors, ResultsMapToNamedErrors) {
  EXPECT_EQ(vk::result_name(VK_ERROR_DEVICE_LOST), "VK_ERROR_DEVICE_LOST");
  EXPECT_THROW(vk::check(VK_ERROR_DEVICE_LOST, "vkQueueSubmit", "c"), DeviceLost);
  EXPECT_THROW(vk::check(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory", "c"), OutOfMemory);
  EXPECT_THROW(vk::check(VK_ERROR_INITIALIZATION_FAILED, "vkCreateDevice", "c"), DeviceError);
  EXPECT_NO_THROW(vk::check(VK_SUCCESS, "x", "c"));
  try {
    vk::check(VK_ERROR_OUT_OF_HOST_MEMORY, "vkAllocateMemory", "exp(shape=7,dtype=f32)");
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.error_name(), "VK_ERROR_OUT_OF_HOST_MEMORY");
    EXPECT_EQ(e.case_id(), "exp(shape=7,dtype=f32)");
  }
}

TEST(VulkanPipelineCache, ReusedAcrossBackendsAndCorruptFileIgnored) {
  std::string dir = vktest::temp_cache_dir("cache");
  std::string why, path;
  {
    auto be = vktest::make_backend(dir, why);
    if (!be) GTEST_SKIP() << why;
    EXPECT_FALSE(be->pipeline_cache_report().loaded_from_disk);
    auto r = run(*be, make_call(OpKind::exp, {}, DType::f32, {{4}}), {tensor(DType::f32, {4}, {0, 1, 2, 3})});
    EXPECT_GE(be->pipeline_cache_report().pipelines, 1u);
    path = be->pipeline_cache_report().path;
    EXPECT_TRUE(be->take_validation_messages().empty());
  }  // destructor saves
  ASSERT_TRUE(std::filesystem::exists(path));
  {
    auto be = vktest::make_backend(dir, why);
    auto rep = be->pipeline_cache_report();
    EXPECT_TRUE(rep.loaded_from_disk) << rep.note;
    EXPECT_TRUE(be->take_validation_messages().empty());
  }
  {  // flip bytes in the middle of the payload: the hash no longer matches
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(path) / 2));
    f.write("garbage!", 8);
  }
  {
    auto be = vktest::make_backend(dir, why);
    auto rep = be->pipeline_cache_report();
    EXPECT_FALSE(rep.loaded_from_disk);
    EXPECT_EQ(rep.note, "hash mismatch");
    auto r = run(*be, make_call(OpKind::exp, {}, DType::f32, {{4}}), {tensor(DType::f32, {4}, {0, 1, 2, 3})});
    EXPECT_NEAR(r.out.get(3), std::exp(3.0), 1e-5);
    EXPECT_TRUE(be->take_validation_messages().empty());
  }
  {  // a file from another device: the header check rejects it
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << "not a cache";
  }
  {
    auto be = vktest::make_backend(dir, why);
    EXPECT_FALSE(be->pipeline_cache_report().loaded_from_disk);
    EXPECT_EQ(be->pipeline_cache_report().note, "bad magic");
  }
  std::filesystem::remove_all(dir);
}

TEST(VulkanProvider, DiscoverNeverThrowsAndDescribesDevices) {
  BackendOptions opts;
  std::vector<DeviceEntry> entries;
  ASSERT_NO_THROW(entries = make_vulkan_provider().discover(opts));
  ASSERT_FALSE(entries.empty());
  for (const auto& e : entries) {
    EXPECT_EQ(e.info.backend, "vulkan");
    EXPECT_TRUE(e.create || !e.unavailable.empty());
  }
}

}  // namespace
}  // namespace gp
