// Lines longer than one work group takes, on every backend this build has: the Vulkan backend
// splits rows of more than 32,768 elements into chunks whose partial statistics the next phase
// combines (backends/vulkan/README.md), the OpenCL backend its reductions' lines
// (backends/opencl/kernels/reduction.cl, "Long lines"), the cpu backend sums pairwise. Whole-row
// formulas in double on the host are the reference, within 1e-12 of the largest expected value:
// sums of 70,001 f64 terms in any order err far less, and a chunk lost or counted twice moves a
// row's sum by a third. Each backend's first device, with validation on; ctest runs the program
// again with the GPU kernel modes (tests/CMakeLists.txt). Broadcast gradients and dot products of
// 70,001 terms too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "backends/registry.hpp"
#include "support/backend_calls.hpp"

namespace gp {
namespace {

using backend_calls::run;

class LongRows : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    BackendOptions opts;
    opts.vulkan_validation = true;
    std::vector<SelectedDevice> devices = select_devices({GetParam()}, opts);
    if (devices.empty() || !devices.front().entry.create)
      GTEST_SKIP() << GetParam()
                   << " unavailable: " << (devices.empty() ? "no device" : devices.front().entry.unavailable);
    backend_ = devices.front().entry.create();
  }
  void TearDown() override {
    if (!backend_) return;
    for (const auto& m : backend_->take_validation_messages()) ADD_FAILURE() << "validation: " << m;
    EXPECT_TRUE(backend_->take_canary_violations().empty());
  }
  static OpCall call(OpKind k, DType dt, std::vector<Shape> shapes, OpAttrs a = {}) {
    return make_call(k, std::move(a), dt, std::move(shapes), std::string(op_name(k)));
  }
  std::unique_ptr<Backend> backend_;
};

// A tensor of `shape` whose element i is f(i).
HostTensor filled(DType dt, const Shape& shape, const std::function<double(std::int64_t)>& f) {
  HostTensor t(dt, shape);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, f(i));
  return t;
}

// Values in [1, 2] that differ from element to element without a pattern a chunk could share.
double wavy(std::int64_t i) {
  return 1.5 + 0.5 * std::sin(0.37 * static_cast<double>(i) + 0.001 * static_cast<double>(i % 977));
}

void expect_close(const HostTensor& got, const std::vector<double>& want, double rel, const char* what) {
  ASSERT_EQ(got.numel(), static_cast<std::int64_t>(want.size())) << what;
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  int reported = 0;
  for (std::int64_t i = 0; i < got.numel() && reported < 5; ++i) {
    const double w = want[static_cast<std::size_t>(i)];
    if (std::abs(got.get(i) - w) > rel * scale) {
      ADD_FAILURE() << what << " element " << i << ": " << got.get(i) << ", want " << w;
      ++reported;
    }
  }
}

// A line of 6e6 elements: on lavapipe one group striding over it ended its loop part-way (349,456
// instead of 6,000,000); the OpenCL backend's chunks must count every element once.
TEST_P(LongRows, SumOfSixMillionOnesCountsEveryOne) {
  const Shape s{6'000'000};
  const HostTensor ones = filled(DType::f32, s, [](std::int64_t) { return 1.0; });
  expect_close(run(*backend_, call(OpKind::sum, DType::f32, {s}), {ones}).out, {6e6}, 0, "sum");
  const auto last_is_largest = filled(DType::f32, s, [&](std::int64_t i) { return i + 1 == s[0] ? 5.0 : 0.0; });
  auto r = run(*backend_, call(OpKind::max, DType::f32, {s}), {last_is_largest});
  expect_close(r.out, {5}, 0, "max");
  std::vector<double> grad(static_cast<std::size_t>(s[0]), 0.0);
  grad.back() = 1;
  expect_close(r.grads[0], grad, 0, "max gradient");
}

// Rows of 70,001 elements, 3 apart, whose maximum ties three times (in the first, second and last
// chunks): each row's cotangent goes to one tied maximum or is split evenly (the stated readings,
// harness/check/other_readings.hpp), never given to each (the OpenCL and Vulkan kernels did).
TEST_P(LongRows, TiedMaximaShareTheRowsCotangent) {
  const std::int64_t O = 2, N = 70'001, I = 3;
  const Shape s{O, N, I};
  auto tied = [](std::int64_t j) { return j == 5 || j == 35'000 || j == N - 1; };
  const HostTensor x = filled(DType::f32, s, [&](std::int64_t e) { return tied(e / I % N) ? 4.0 : wavy(e); });
  OpAttrs a;
  a.axis = 1;
  const HostTensor g =
      filled(DType::f32, Shape{O, I}, [](std::int64_t r) { return 1.0 + 0.25 * static_cast<double>(r); });
  const auto r = run(*backend_, call(OpKind::max, DType::f32, {s}, a), {x}, &g);
  for (std::int64_t o = 0; o < O; ++o)
    for (std::int64_t i = 0; i < I; ++i) {
      const double gv = g.get(o * I + i);
      double total = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        const double d = r.grads[0].get((o * N + j) * I + i);
        total += d;
        if (!tied(j)) {
          ASSERT_EQ(d, 0) << "row " << o * I + i << " element " << j;
        } else {
          EXPECT_TRUE(d == 0 || d == gv || std::abs(d - gv / 3) <= 1e-6 * gv) << d;
        }
      }
      EXPECT_NEAR(total, gv, 1e-6 * gv) << "row " << o * I + i;
    }
}

// Rows of 70,001 elements (three chunks, the last one partial) that are 3 apart: axis 1 of
// [2, 70001, 3], every statistic's forward and backward.
TEST_P(LongRows, SplitStridedRowsMatchWholeRowFormulas) {
  const std::int64_t O = 2, N = 70'001, I = 3;
  const Shape s{O, N, I};
  const HostTensor x = filled(DType::f64, s, wavy);
  const HostTensor g = filled(DType::f64, s, [](std::int64_t i) { return std::cos(0.11 * static_cast<double>(i)); });
  auto at = [&](std::int64_t o, std::int64_t j, std::int64_t i) { return (o * N + j) * I + i; };
  OpAttrs a;
  a.axis = 1;
  a.correction = 1;
  std::vector<double> sum(O * I), var(O * I), lse(O * I), soft(O * N * I), dsoft(O * N * I), dlog(O * N * I);
  for (std::int64_t o = 0; o < O; ++o)
    for (std::int64_t i = 0; i < I; ++i) {
      double s1 = 0, m = -INFINITY;
      for (std::int64_t j = 0; j < N; ++j) s1 += x.get(at(o, j, i)), m = std::max(m, x.get(at(o, j, i)));
      double mean = s1 / N, s2 = 0, se = 0, gp = 0, gsum = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        const double v = x.get(at(o, j, i));
        s2 += (v - mean) * (v - mean);
        se += std::exp(v - m);
      }
      for (std::int64_t j = 0; j < N; ++j) {
        soft[at(o, j, i)] = std::exp(x.get(at(o, j, i)) - m) / se;
        gp += g.get(at(o, j, i)) * soft[at(o, j, i)];
        gsum += g.get(at(o, j, i));
      }
      for (std::int64_t j = 0; j < N; ++j) {
        dsoft[at(o, j, i)] = soft[at(o, j, i)] * (g.get(at(o, j, i)) - gp);
        dlog[at(o, j, i)] = g.get(at(o, j, i)) - soft[at(o, j, i)] * gsum;
      }
      sum[o * I + i] = s1;
      var[o * I + i] = s2 / (N - 1);
      lse[o * I + i] = m + std::log(se);
    }
  const double rel = 1e-12;
  expect_close(run(*backend_, call(OpKind::sum, DType::f64, {s}, a), {x}).out, sum, rel, "sum");
  expect_close(run(*backend_, call(OpKind::variance, DType::f64, {s}, a), {x}).out, var, rel, "variance");
  expect_close(run(*backend_, call(OpKind::logsumexp, DType::f64, {s}, a), {x}).out, lse, rel, "logsumexp");
  auto rs = run(*backend_, call(OpKind::softmax, DType::f64, {s}, a), {x}, &g);
  expect_close(rs.out, soft, rel, "softmax");
  expect_close(rs.grads[0], dsoft, rel, "softmax gradient");
  expect_close(run(*backend_, call(OpKind::log_softmax, DType::f64, {s}, a), {x}, &g).grads[0], dlog, rel,
               "log_softmax gradient");
}

// cross_entropy over 70,001 classes and layer_norm over 40,000 columns: split rows whose row
// scalars (a loss, a row's mean and rstd) are written once (by the first chunk where rows split).
TEST_P(LongRows, SplitRowsOfLossesAndNorms) {
  const std::int64_t B = 2, C = 70'001;
  const HostTensor logits = filled(DType::f64, {B, C}, wavy);
  HostTensor targets(DType::i32, {B});
  targets.as<std::int32_t>()[0] = 5;
  targets.as<std::int32_t>()[1] = static_cast<std::int32_t>(C - 2);
  std::vector<double> dlogits(B * C);
  double loss = 0;
  for (std::int64_t b = 0; b < B; ++b) {
    double m = -INFINITY, se = 0;
    for (std::int64_t j = 0; j < C; ++j) m = std::max(m, logits.get(b * C + j));
    for (std::int64_t j = 0; j < C; ++j) se += std::exp(logits.get(b * C + j) - m);
    const std::int64_t t = targets.as<std::int32_t>()[b];
    loss += (m + std::log(se) - logits.get(b * C + t)) / B;
    for (std::int64_t j = 0; j < C; ++j) dlogits[b * C + j] = (std::exp(logits.get(b * C + j) - m) / se - (j == t)) / B;
  }
  auto rc = run(*backend_, call(OpKind::cross_entropy, DType::f64, {{B, C}, {B}}), {logits, targets});
  expect_close(rc.out, {loss}, 1e-12, "cross_entropy");
  expect_close(rc.grads[0], dlogits, 1e-12, "cross_entropy gradient");

  const std::int64_t R = 2, N = 40'000;
  const HostTensor x = filled(DType::f64, {R, N}, wavy);
  const HostTensor w =
      filled(DType::f64, {N}, [](std::int64_t j) { return 1 + 0.25 * std::cos(0.3 * static_cast<double>(j)); });
  const HostTensor bias = filled(DType::f64, {N}, [](std::int64_t j) { return 0.01 * static_cast<double>(j % 7); });
  OpAttrs a;
  a.eps = 1e-5;
  std::vector<double> y(R * N), dx(R * N), dw(N, 0.0), db(N, 0.0);
  for (std::int64_t r = 0; r < R; ++r) {
    double mean = 0, var = 0;
    for (std::int64_t j = 0; j < N; ++j) mean += x.get(r * N + j) / N;
    for (std::int64_t j = 0; j < N; ++j) var += (x.get(r * N + j) - mean) * (x.get(r * N + j) - mean) / N;
    const double rstd = 1 / std::sqrt(var + a.eps);
    double mean_d = 0, mean_dx = 0;  // cotangent of ones: d = w
    for (std::int64_t j = 0; j < N; ++j) {
      const double xhat = (x.get(r * N + j) - mean) * rstd;
      y[r * N + j] = xhat * w.get(j) + bias.get(j);
      mean_d += w.get(j) / N;
      mean_dx += w.get(j) * xhat / N;
      dw[j] += xhat;
      db[j] += 1;
    }
    for (std::int64_t j = 0; j < N; ++j)
      dx[r * N + j] = rstd * (w.get(j) - mean_d - (x.get(r * N + j) - mean) * rstd * mean_dx);
  }
  auto rl = run(*backend_, call(OpKind::layer_norm, DType::f64, {{R, N}, {N}, {N}}, a), {x, w, bias});
  expect_close(rl.out, y, 1e-12, "layer_norm");
  expect_close(rl.grads[0], dx, 1e-12, "layer_norm dx");
  expect_close(rl.grads[1], dw, 1e-12, "layer_norm dw");
  expect_close(rl.grads[2], db, 1e-12, "layer_norm db");
}

// Broadcast inputs whose gradients sum 70,001 terms each: a per-feature scale (the innermost dim
// kept: OpenCL's column tiles) and a per-row divisor (the innermost dim summed), each long sum
// split into chunks by the OpenCL backend and added up by a second pass.
TEST_P(LongRows, BroadcastGradientsSumEveryTermOnce) {
  const std::int64_t N = 70'001, F = 3;
  const HostTensor x = filled(DType::f64, {N, F}, wavy), scale = filled(DType::f64, {F}, wavy);
  const HostTensor g = filled(DType::f64, {N, F}, [](std::int64_t i) { return wavy(i + 11) - 1.5; });
  std::vector<double> dscale(F, 0.0);
  for (std::int64_t r = 0; r < N; ++r)
    for (std::int64_t f = 0; f < F; ++f) dscale[f] += g.get(r * F + f) * x.get(r * F + f);
  auto rm = run(*backend_, call(OpKind::mul, DType::f64, {{N, F}, {F}}), {x, scale}, &g);
  expect_close(rm.grads[1], dscale, 1e-12, "mul's broadcast gradient");

  const HostTensor rows = filled(DType::f64, {F, N}, wavy), divisor = filled(DType::f64, {F, 1}, wavy);
  const HostTensor gr = filled(DType::f64, {F, N}, [](std::int64_t i) { return wavy(i + 5) - 1.5; });
  std::vector<double> ddivisor(F, 0.0);
  for (std::int64_t f = 0; f < F; ++f) {
    const double b = divisor.get(f);
    for (std::int64_t c = 0; c < N; ++c) ddivisor[f] += gr.get(f * N + c) * (-(rows.get(f * N + c) / b) / b);
  }
  auto rd = run(*backend_, call(OpKind::div, DType::f64, {{F, N}, {F, 1}}), {rows, divisor}, &gr);
  expect_close(rd.grads[1], ddivisor, 1e-12, "div's broadcast gradient");
}

// Dot products of 70,001 terms at a few outputs, batched and with a bias: the OpenCL backend
// splits the inner size between groups (kernels/linalg.cl, "Split K") and adds the slices once.
TEST_P(LongRows, LongDotProductsAddEverySliceOnce) {
  const std::int64_t B = 2, M = 5, K = 70'001, N = 3;
  const HostTensor a = filled(DType::f64, {B, M, K}, wavy);
  const HostTensor b = filled(DType::f64, {B, K, N}, [](std::int64_t i) { return wavy(i + 3) - 1.5; });
  std::vector<double> c(B * M * N, 0.0);
  for (std::int64_t t = 0; t < B; ++t)
    for (std::int64_t i = 0; i < M; ++i)
      for (std::int64_t p = 0; p < K; ++p)
        for (std::int64_t j = 0; j < N; ++j)
          c[(t * M + i) * N + j] += a.get((t * M + i) * K + p) * b.get((t * K + p) * N + j);
  expect_close(run(*backend_, call(OpKind::matmul, DType::f64, {{B, M, K}, {B, K, N}}), {a, b}).out, c, 1e-12,
               "batched matmul");

  const HostTensor x = filled(DType::f64, {M, K}, wavy),
                   w = filled(DType::f64, {N, K}, [](std::int64_t i) { return wavy(i + 7) - 1.5; });
  const HostTensor bias = filled(DType::f64, {N}, [](std::int64_t j) { return 100.0 * static_cast<double>(j + 1); });
  std::vector<double> y(M * N);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      y[i * N + j] = bias.get(j);
      for (std::int64_t p = 0; p < K; ++p) y[i * N + j] += x.get(i * K + p) * w.get(j * K + p);
    }
  expect_close(run(*backend_, call(OpKind::linear, DType::f64, {{M, K}, {N, K}, {N}}), {x, w, bias}).out, y, 1e-12,
               "linear");
}

std::vector<std::string> built_in_backends() {
  std::vector<std::string> names;
  for (const auto& p : backend_providers())
    if (!p.load) names.push_back(p.name);  // a plugin needs its library: tests/plugin
  return names;
}
INSTANTIATE_TEST_SUITE_P(Backends, LongRows, ::testing::ValuesIn(built_in_backends()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gp
