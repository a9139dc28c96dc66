// The reference's error scales against real float arithmetic: straightforward f32 evaluations of
// the contract's formulas (core/README.md), as a backend would write them, must stay within a few
// u_f32 * scale of the reference on every element. A scale that is too tight anywhere (a missed
// cancellation, a forgotten stage) fails here; test_reference.cpp checks that scales are not loose.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "reference/reference.hpp"

namespace gp::ref {
namespace {

constexpr std::int64_t kRows = 64, kCols = 128;  // the largest 2-D shape of the op catalog
const Shape kShape{kRows, kCols};
constexpr double kBudget = 4;  // glibc's float functions are within ~1-2 ulp; the scales add the rest

using Floats = std::vector<float>;

class Data {
 public:
  explicit Data(std::uint64_t seed) : rng_(seed) {}
  Floats uniform(std::int64_t n, float lo, float hi) {
    return fill(n, [&] { return std::uniform_real_distribution<float>(lo, hi)(rng_); });
  }
  Floats normal(std::int64_t n, float mean = 0, float sd = 1) {
    return fill(n, [&] { return std::normal_distribution<float>(mean, sd)(rng_); });
  }

 private:
  Floats fill(std::int64_t n, const std::function<float()>& f) {
    Floats v(static_cast<std::size_t>(n));
    for (auto& x : v) x = f();
    return v;
  }
  std::mt19937_64 rng_;
};

RefTensor widen(const Shape& s, const Floats& v) {
  RefTensor t;
  t.shape = s;
  t.v.assign(v.begin(), v.end());
  t.scale.assign(v.size(), 0);
  return t;
}

// Largest |got - ref| / (u_f32 * scale) over the elements.
void expect_within_budget(const Floats& got, const RefTensor& ref, const std::string& what) {
  ASSERT_EQ(got.size(), ref.v.size()) << what;
  const long double u = std::ldexp(1.0L, -24);
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    long double err = std::fabs(static_cast<long double>(got[i]) - ref.v[i]);
    double ratio = err == 0 ? 0.0 : static_cast<double>(err / (u * ref.scale[i]));
    if (!(ratio <= worst)) worst = ratio, at = i;
  }
  EXPECT_LE(worst, kBudget) << what << ": element " << at << " reference " << double(ref.v[at]) << " got " << got[at]
                            << " scale " << double(ref.scale[at]);
}

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

struct UnaryFormula {
  OpKind op;
  OpAttrs attrs;
  float lo, hi;
  float (*f)(float x);
  float (*grad)(float x, float y, float dy);  // y = f(x), the value a backward kernel may reuse
};

float gelu_tanh_u(float x) { return 0.7978845608f * (x + 0.044715f * x * x * x); }

std::vector<UnaryFormula> unary_formulas() {
  OpAttrs tanh_form;
  tanh_form.gelu = GeluApprox::tanh;
  return {
      {OpKind::tanh,
       {},
       -8,
       8,
       [](float x) { return std::tanh(x); },
       [](float, float y, float d) { return d * (1.f - y * y); }},
      {OpKind::sigmoid, {}, -8, 8, sigmoid, [](float, float y, float d) { return d * y * (1.f - y); }},
      {OpKind::softplus,
       {},
       -8,
       8,
       [](float x) { return std::log(1.f + std::exp(x)); },
       [](float x, float, float d) { return d * sigmoid(x); }},
      {OpKind::silu,
       {},
       -8,
       8,
       [](float x) { return x * sigmoid(x); },
       [](float x, float, float d) { return d * sigmoid(x) * (1.f + x * (1.f - sigmoid(x))); }},
      {OpKind::gelu,
       {},
       -6,
       6,
       [](float x) { return 0.5f * x * (1.f + std::erf(x / std::sqrt(2.f))); },
       [](float x, float, float d) {
         return d * (0.5f * (1.f + std::erf(x / std::sqrt(2.f))) + x * 0.3989422804f * std::exp(-0.5f * x * x));
       }},
      {OpKind::gelu, tanh_form, -6, 6, [](float x) { return 0.5f * x * (1.f + std::tanh(gelu_tanh_u(x))); },
       [](float x, float, float d) {
         float t = std::tanh(gelu_tanh_u(x));
         return d * (0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * 0.7978845608f * (1.f + 3.f * 0.044715f * x * x));
       }},
      {OpKind::elu,
       {},
       -4,
       4,
       [](float x) { return x > 0 ? x : std::exp(x) - 1.f; },
       [](float x, float, float d) { return d * (x > 0 ? 1.f : std::exp(x)); }},
      {OpKind::exp, {}, -10, 10, [](float x) { return std::exp(x); }, [](float, float y, float d) { return d * y; }},
      {OpKind::log, {}, 0.05f, 20, [](float x) { return std::log(x); }, [](float x, float, float d) { return d / x; }},
      {OpKind::sin,
       {},
       -20,
       20,
       [](float x) { return std::sin(x); },
       [](float x, float, float d) { return d * std::cos(x); }},
      {OpKind::rsqrt,
       {},
       0.05f,
       20,
       [](float x) { return 1.f / std::sqrt(x); },
       [](float x, float, float d) { return -0.5f * d / (x * std::sqrt(x)); }},
  };
}

TEST(ReferenceScaleModel, BoundsFloatUnaryFormulas) {
  Data data(1);
  for (const UnaryFormula& u : unary_formulas()) {
    Floats x = data.uniform(kShape.numel(), u.lo, u.hi), dy = data.normal(kShape.numel()), y(x.size()), g(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = u.f(x[i]), g[i] = u.grad(x[i], y[i], dy[i]);
    OpCall call = make_call(u.op, u.attrs, DType::f32, {kShape});
    RefTensor rx = widen(kShape, x), ry = forward(call, {rx});
    std::string name = std::string(op_name(u.op)) + "(" + attrs_to_string(u.op, u.attrs) + ")";
    expect_within_budget(y, ry, name + " forward");
    expect_within_budget(g, vjp(call, {rx}, ry, widen(kShape, dy))[0], name + " backward");
  }
}

// Row statistics of a float kernel: max, sum of exp(x - max), mean, sum of squared deviations.
struct FloatRow {
  float max = -INFINITY, sum_exp = 0, mean = 0, squares = 0;
  FloatRow(const float* x, std::int64_t n) {
    for (std::int64_t j = 0; j < n; ++j) max = std::max(max, x[j]);
    for (std::int64_t j = 0; j < n; ++j) sum_exp += std::exp(x[j] - max), mean += x[j];
    mean /= static_cast<float>(n);
    for (std::int64_t j = 0; j < n; ++j) squares += (x[j] - mean) * (x[j] - mean);
  }
  float lse() const { return max + std::log(sum_exp); }
};

class RowOps : public ::testing::TestWithParam<float> {};  // parameter: spread of the logits

TEST_P(RowOps, BoundFloatKernels) {
  Data data(2);
  const float spread = GetParam();
  Floats x = data.normal(kShape.numel(), 3, spread), dy = data.normal(kShape.numel()), dr = data.normal(kRows);
  Floats sm(x.size()), ls(x.size()), g_sm(x.size()), g_ls(x.size()), g_lse(x.size()), g_var(x.size());
  Floats lse(kRows), var(kRows);
  for (std::int64_t r = 0; r < kRows; ++r) {
    const float* xr = &x[static_cast<std::size_t>(r * kCols)];
    FloatRow st(xr, kCols);
    lse[r] = st.lse();
    var[r] = st.squares / (kCols - 1);
    float dot = 0, total = 0;
    for (std::int64_t j = 0; j < kCols; ++j) {
      std::size_t i = static_cast<std::size_t>(r * kCols + j);
      sm[i] = std::exp(x[i] - st.max) / st.sum_exp;
      ls[i] = x[i] - st.max - std::log(st.sum_exp);
      dot += dy[i] * sm[i], total += dy[i];
    }
    for (std::int64_t j = 0; j < kCols; ++j) {
      std::size_t i = static_cast<std::size_t>(r * kCols + j);
      g_sm[i] = sm[i] * (dy[i] - dot);
      g_ls[i] = dy[i] - std::exp(ls[i]) * total;
      g_lse[i] = dr[r] * std::exp(x[i] - lse[r]);
      g_var[i] = dr[r] * 2.f * (x[i] - st.mean) / (kCols - 1);
    }
  }
  RefTensor rx = widen(kShape, x), rdy = widen(kShape, dy), rdr = widen(Shape{kRows}, dr);
  auto check = [&](OpKind k, OpAttrs a, const Floats& y, const Floats& g, const RefTensor& dout) {
    OpCall call = make_call(k, a, DType::f32, {kShape});
    RefTensor ry = forward(call, {rx});
    expect_within_budget(y, ry, std::string(op_name(k)) + " forward");
    expect_within_budget(g, vjp(call, {rx}, ry, dout)[0], std::string(op_name(k)) + " backward");
  };
  OpAttrs corrected;
  corrected.correction = 1;
  check(OpKind::softmax, {}, sm, g_sm, rdy);
  check(OpKind::log_softmax, {}, ls, g_ls, rdy);
  check(OpKind::logsumexp, {}, lse, g_lse, rdr);
  check(OpKind::variance, corrected, var, g_var, rdr);
}

INSTANTIATE_TEST_SUITE_P(Spreads, RowOps, ::testing::Values(1.f, 5.f));

TEST(ReferenceScaleModel, BoundsFloatLayerNorm) {
  Data data(3);
  Floats x = data.normal(kShape.numel(), 2, 3), w = data.normal(kCols), b = data.normal(kCols);
  Floats dy = data.normal(kShape.numel()), y(x.size()), dx(x.size()), dw(kCols, 0), db(kCols, 0), xh(kCols);
  const float eps = 1e-5f;
  for (std::int64_t r = 0; r < kRows; ++r) {
    const std::size_t row = static_cast<std::size_t>(r * kCols);
    FloatRow st(&x[row], kCols);
    float inv = 1.f / std::sqrt(st.squares / kCols + eps), a = 0, bm = 0;
    for (std::size_t j = 0; j < kCols; ++j) {
      xh[j] = (x[row + j] - st.mean) * inv;
      y[row + j] = xh[j] * w[j] + b[j];
      a += dy[row + j] * w[j], bm += dy[row + j] * w[j] * xh[j];
      dw[j] += dy[row + j] * xh[j], db[j] += dy[row + j];
    }
    a /= kCols, bm /= kCols;
    for (std::size_t j = 0; j < kCols; ++j) dx[row + j] = inv * (dy[row + j] * w[j] - a - xh[j] * bm);
  }
  OpAttrs attrs;
  attrs.eps = eps;
  OpCall call = make_call(OpKind::layer_norm, attrs, DType::f32, {kShape, Shape{kCols}, Shape{kCols}});
  std::vector<RefTensor> in = {widen(kShape, x), widen(Shape{kCols}, w), widen(Shape{kCols}, b)};
  RefTensor ry = forward(call, in);
  std::vector<RefTensor> g = vjp(call, in, ry, widen(kShape, dy));
  expect_within_budget(y, ry, "layer_norm forward");
  expect_within_budget(dx, g[0], "layer_norm dx");
  expect_within_budget(dw, g[1], "layer_norm dw");
  expect_within_budget(db, g[2], "layer_norm db");
}

TEST(ReferenceScaleModel, BoundsFloatLosses) {
  Data data(4);
  Floats x = data.normal(kShape.numel(), 0, 3), t = data.uniform(kShape.numel(), 0, 1), targets(kRows);
  for (auto& c : targets) c = std::floor(data.uniform(1, 0, kCols - 0.01f)[0]);
  const float dl = 0.7f, n = static_cast<float>(x.size());
  float ce = 0, bce = 0;
  Floats g_ce(x.size()), g_bx(x.size()), g_bt(x.size());
  for (std::int64_t r = 0; r < kRows; ++r) {
    const std::size_t row = static_cast<std::size_t>(r * kCols);
    float lse = FloatRow(&x[row], kCols).lse();
    ce += lse - x[row + static_cast<std::size_t>(targets[r])];
    for (std::size_t j = 0; j < kCols; ++j)
      g_ce[row + j] = dl / kRows * (std::exp(x[row + j] - lse) - (j == targets[r] ? 1.f : 0.f));
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    bce += std::max(x[i], 0.f) - x[i] * t[i] + std::log(1.f + std::exp(-std::fabs(x[i])));
    g_bx[i] = dl / n * (sigmoid(x[i]) - t[i]);
    g_bt[i] = -dl * x[i] / n;
  }
  RefTensor rx = widen(kShape, x), rdl = widen(Shape{}, {dl});
  OpCall ce_call = make_call(OpKind::cross_entropy, {}, DType::f32, {kShape, Shape{kRows}});
  std::vector<RefTensor> ce_in = {rx, widen(Shape{kRows}, targets)};
  RefTensor ce_ref = forward(ce_call, ce_in);
  expect_within_budget({ce / kRows}, ce_ref, "cross_entropy forward");
  expect_within_budget(g_ce, vjp(ce_call, ce_in, ce_ref, rdl)[0], "cross_entropy backward");
  OpCall bce_call = make_call(OpKind::bce_with_logits, {}, DType::f32, {kShape, kShape});
  std::vector<RefTensor> bce_in = {rx, widen(kShape, t)};
  RefTensor bce_ref = forward(bce_call, bce_in);
  std::vector<RefTensor> g = vjp(bce_call, bce_in, bce_ref, rdl);
  expect_within_budget({bce / n}, bce_ref, "bce_with_logits forward");
  expect_within_budget(g_bx, g[0], "bce_with_logits dx");
  expect_within_budget(g_bt, g[1], "bce_with_logits dt");
}

TEST(ReferenceScaleModel, BoundsFloatMatmulAndBroadcastDiv) {
  Data data(5);
  const std::int64_t m = 33, k = 128, n = 65;
  Floats a = data.normal(m * k), b = data.normal(k * n), dc = data.normal(m * n), c(m * n), da(m * k), db(k * n);
  auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t p = 0; p < k; ++p) c[at(i * n + j)] += a[at(i * k + p)] * b[at(p * n + j)];
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) da[at(i * k + p)] += dc[at(i * n + j)] * b[at(p * n + j)];
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) db[at(p * n + j)] += a[at(i * k + p)] * dc[at(i * n + j)];
  OpCall mm = make_call(OpKind::matmul, {}, DType::f32, {Shape{m, k}, Shape{k, n}});
  std::vector<RefTensor> in = {widen(Shape{m, k}, a), widen(Shape{k, n}, b)};
  RefTensor rc = forward(mm, in);
  std::vector<RefTensor> g = vjp(mm, in, rc, widen(Shape{m, n}, dc));
  expect_within_budget(c, rc, "matmul forward");
  expect_within_budget(da, g[0], "matmul dA");
  expect_within_budget(db, g[1], "matmul dB");

  // [B, N] / [N]: the divisor's gradient sums over the batch.
  Floats x = data.normal(kShape.numel()), y = data.uniform(kCols, 0.25f, 2), dz = data.normal(kShape.numel());
  Floats z(x.size()), gx(x.size()), gy(kCols, 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::size_t j = i % kCols;
    z[i] = x[i] / y[j], gx[i] = dz[i] / y[j], gy[j] += -dz[i] * x[i] / (y[j] * y[j]);
  }
  OpCall div = make_call(OpKind::div, {}, DType::f32, {kShape, Shape{kCols}});
  std::vector<RefTensor> din = {widen(kShape, x), widen(Shape{kCols}, y)};
  RefTensor rz = forward(div, din);
  std::vector<RefTensor> dg = vjp(div, din, rz, widen(kShape, dz));
  expect_within_budget(z, rz, "div forward");
  expect_within_budget(gx, dg[0], "div dx");
  expect_within_budget(gy, dg[1], "div dy (broadcast)");
}

}  // namespace
}  // namespace gp::ref
