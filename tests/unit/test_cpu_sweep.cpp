// A sweep over (nearly) every op of the catalog on the CPU backend, independent of cases/ and
// the reference:
//   * f64: the VJP of every differentiable input agrees with a directional central difference
//     of the backend's own f64 forward (u . (f(x+hv) - f(x-hv)) / 2h  vs  grad . v);
//   * f32 (and f16/bf16 where supported) agree with f64 run on the same rounded inputs.
// The straight-through ops are left out: their gradient is a declared surrogate, tested by hand
// in test_cpu_backend.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>

#include "backends/cpu/cpu_backend.hpp"

namespace gp {
namespace {

struct Range {
  double lo = -2, hi = 2;
};

struct SweepCase {
  std::string label;
  OpCall call;                // built in f64; other dtypes copy it
  std::vector<Range> ranges;  // per input; missing entries use [-2, 2]
};

// gtest prints the label instead of the bytes of a failing parameter.
void PrintTo(const SweepCase& c, std::ostream* os) { *os << c.label; }

template <typename Set>
OpAttrs with(Set set) {
  OpAttrs a;
  set(a);
  return a;
}

SweepCase make(OpKind k, std::vector<Shape> shapes, OpAttrs attrs = {}, std::vector<Range> ranges = {}) {
  std::string label = std::string(op_name(k));
  for (const auto& s : shapes) label += "_" + s.to_string();
  std::string at = attrs_to_string(k, attrs);
  for (char& c : at)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  if (!at.empty()) label += "_" + at;
  return {label, make_call(k, std::move(attrs), DType::f64, std::move(shapes), label), std::move(ranges)};
}

std::vector<SweepCase> sweep_cases() {
  const Range positive{0.2, 3}, away_from_zero{0.5, 2}, probability{0, 1};
  std::vector<SweepCase> v;
  for (OpKind k : all_ops()) {
    if (op_family(k) != OpFamily::unary || op_gradient(k) != GradientKind::exact) continue;
    bool pos = k == OpKind::log || k == OpKind::sqrt || k == OpKind::rsqrt || k == OpKind::pow_scalar;
    std::vector<Range> r{pos ? positive : k == OpKind::reciprocal ? away_from_zero : Range{}};
    if (k == OpKind::log1p) r = {Range{-0.5, 3}};
    OpAttrs a;
    if (k == OpKind::pow_scalar) a.p = 2.5;
    if (k == OpKind::leaky_relu) a.alpha = 0.2;
    v.push_back(make(k, {Shape{2, 5}}, a, r));
  }
  v.push_back(make(OpKind::gelu, {Shape{7}}, with([](OpAttrs& a) { a.gelu = GeluApprox::tanh; })));
  for (OpKind k : {OpKind::add, OpKind::sub, OpKind::mul, OpKind::maximum, OpKind::minimum})
    v.push_back(make(k, {Shape{3, 4}, Shape{4}}));
  v.push_back(make(OpKind::div, {Shape{3, 4}, Shape{3, 1}}, {}, {Range{}, away_from_zero}));
  v.push_back(make(OpKind::pow, {Shape{3, 4}, Shape{1, 4}}, {}, {away_from_zero, Range{-1, 2}}));
  v.push_back(make(OpKind::mul, {Shape{3, 1}, Shape{1, 4}}));
  v.push_back(make(OpKind::add, {Shape{}, Shape{2, 3}}));
  for (OpKind k : {OpKind::sum, OpKind::mean, OpKind::max, OpKind::logsumexp})
    v.push_back(make(k, {Shape{3, 4, 5}}, with([](OpAttrs& a) { a.axis = 1; })));
  v.push_back(make(OpKind::sum, {Shape{3, 4}}, with([](OpAttrs& a) {
                     a.axis = -1;
                     a.keepdim = true;
                   })));
  v.push_back(make(OpKind::variance, {Shape{3, 4, 5}}, with([](OpAttrs& a) {
                     a.axis = 2;
                     a.correction = 1;
                   })));
  v.push_back(make(OpKind::softmax, {Shape{3, 4, 5}}, with([](OpAttrs& a) { a.axis = 1; })));
  v.push_back(make(OpKind::log_softmax, {Shape{3, 4, 5}}, with([](OpAttrs& a) { a.axis = -1; })));
  v.push_back(make(OpKind::layer_norm, {Shape{3, 6}, Shape{6}, Shape{6}}));
  v.push_back(make(OpKind::matmul, {Shape{3, 4}, Shape{4, 2}}));
  v.push_back(make(OpKind::matmul, {Shape{2, 3, 4}, Shape{2, 4, 5}}));
  v.push_back(make(OpKind::linear, {Shape{3, 4}, Shape{5, 4}, Shape{5}}));
  v.push_back(make(OpKind::transpose, {Shape{2, 3, 4}}));
  v.push_back(make(OpKind::reshape, {Shape{3, 4}}, with([](OpAttrs& a) { a.shape = {2, 6}; })));
  v.push_back(make(OpKind::concat, {Shape{2, 3}, Shape{2, 2}, Shape{2, 1}}, with([](OpAttrs& a) { a.axis = 1; })));
  v.push_back(make(OpKind::slice, {Shape{5, 6}}, with([](OpAttrs& a) {
                     a.axis = 1;
                     a.start = 1;
                     a.stop = 6;
                     a.step = 2;
                   })));
  v.push_back(make(OpKind::mse_loss, {Shape{3, 4}, Shape{3, 4}}));
  v.push_back(make(OpKind::mse_loss, {Shape{7}, Shape{7}}, with([](OpAttrs& a) { a.reduction = LossReduction::sum; })));
  v.push_back(make(OpKind::cross_entropy, {Shape{4, 5}, Shape{4}}));
  v.push_back(make(OpKind::bce_with_logits, {Shape{3, 4}, Shape{3, 4}}, {}, {Range{-4, 4}, probability}));
  v.push_back(make(OpKind::gumbel_softmax, {Shape{3, 5}, Shape{3, 5}}, with([](OpAttrs& a) { a.tau = 0.7; })));
  return v;
}

// Runs one op on the backend from double inputs (rounded into the call's dtypes) and returns
// the forward output and, when dout is given, the gradients (empty for inputs without one).
struct OpRun {
  std::vector<double> y;
  std::vector<std::vector<double>> grads;
};

OpRun run(Backend& backend, const OpCall& call, const std::vector<std::vector<double>>& inputs,
          const std::vector<double>* dout) {
  auto queue = backend.create_queue();
  std::vector<std::unique_ptr<DeviceBuffer>> in;
  std::vector<const DeviceBuffer*> in_raw;
  auto upload = [&](DType t, const Shape& s, const std::vector<double>& values) {
    HostTensor h(t, s);
    for (std::int64_t i = 0; i < h.numel(); ++i) h.set(i, values[static_cast<std::size_t>(i)]);
    auto b = backend.allocate(t, s);
    queue->upload(*b, h);
    return b;
  };
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    in.push_back(upload(call.input_dtypes[k], call.input_shapes[k], inputs[k]));
    in_raw.push_back(in.back().get());
  }
  auto out = backend.allocate(call.dtype, call.output_shape);
  queue->forward(call, in_raw, *out);
  OpRun r{queue->download(*out).to_doubles(), {}};
  if (!dout) return r;
  auto dy = upload(call.dtype, call.output_shape, *dout);
  std::vector<std::unique_ptr<DeviceBuffer>> grads;
  std::vector<DeviceBuffer*> slots;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    bool wanted = input_is_differentiable(call.kind, static_cast<int>(k));
    grads.push_back(wanted ? backend.allocate(call.input_dtypes[k], call.input_shapes[k]) : nullptr);
    slots.push_back(grads.back().get());
  }
  queue->backward(call, in_raw, *out, *dy, slots);
  for (auto& g : grads) r.grads.push_back(g ? queue->download(*g).to_doubles() : std::vector<double>{});
  return r;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

class CpuSweep : public ::testing::TestWithParam<SweepCase> {
 protected:
  std::unique_ptr<Backend> backend = make_cpu_provider().discover({}).at(0).create();
  std::mt19937_64 rng{12345};

  std::vector<double> uniform(std::size_t n, Range r) {
    std::uniform_real_distribution<double> d(r.lo, r.hi);
    std::vector<double> v(n);
    for (auto& x : v) x = d(rng);
    return v;
  }

  std::vector<std::vector<double>> inputs(const SweepCase& c) {
    std::vector<std::vector<double>> v;
    for (std::size_t k = 0; k < c.call.input_shapes.size(); ++k) {
      auto n = static_cast<std::size_t>(c.call.input_shapes[k].numel());
      if (c.call.input_dtypes[k] == DType::i32) {  // class labels
        std::vector<double> labels(n);
        for (std::size_t i = 0; i < n; ++i) labels[i] = static_cast<double>((3 * i + 1) % c.call.input_shapes[0][1]);
        v.push_back(labels);
      } else {
        v.push_back(uniform(n, k < c.ranges.size() ? c.ranges[k] : Range{}));
      }
    }
    return v;
  }

  void TearDown() override { EXPECT_TRUE(backend->take_canary_violations().empty()); }
};

TEST_P(CpuSweep, F64GradientsMatchDirectionalDifferences) {
  const SweepCase& c = GetParam();
  auto x = inputs(c);
  auto u = uniform(static_cast<std::size_t>(c.call.output_shape.numel()), {-1, 1});
  OpRun base = run(*backend, c.call, x, &u);
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!input_is_differentiable(c.call.kind, static_cast<int>(k))) continue;
    auto dir = uniform(x[k].size(), {-1, 1});
    const double h = 1e-5;
    auto shifted = [&](double sign) {
      auto xs = x;
      for (std::size_t i = 0; i < dir.size(); ++i) xs[k][i] += sign * h * dir[i];
      return run(*backend, c.call, xs, nullptr).y;
    };
    auto up = shifted(1), down = shifted(-1);
    double numeric = (dot(u, up) - dot(u, down)) / (2 * h);
    double analytic = dot(base.grads[k], dir);
    EXPECT_NEAR(analytic, numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << c.label << " input " << k;
  }
}

// Lower precisions agree with f64 on the same (rounded) inputs, normwise.
TEST_P(CpuSweep, LowerPrecisionsAgreeWithF64) {
  const SweepCase& c = GetParam();
  auto x = inputs(c);
  auto u = uniform(static_cast<std::size_t>(c.call.output_shape.numel()), {-1, 1});
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    OpCall low = make_call(c.call.kind, c.call.attrs, t, c.call.input_shapes, c.label);
    if (!backend->supports(low).ok) continue;
    auto xr = x;
    for (std::size_t k = 0; k < xr.size(); ++k)
      if (low.input_dtypes[k] != DType::i32)
        for (auto& e : xr[k]) e = round_to(t, e);
    auto ur = u;
    for (auto& e : ur) e = round_to(t, e);
    OpRun want = run(*backend, c.call, xr, &ur), got = run(*backend, low, xr, &ur);
    double tol = t == DType::f32 ? 1e-5 : t == DType::f16 ? 4e-3 : 3e-2;
    auto check = [&](const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
      double norm = 0, err = 0;
      for (std::size_t i = 0; i < b.size(); ++i) {
        norm = std::max(norm, std::abs(b[i]));
        err = std::max(err, std::abs(a[i] - b[i]));
      }
      EXPECT_LE(err, tol * (norm + 1e-3)) << c.label << " " << dtype_name(t) << " " << what;
    };
    check(got.y, want.y, "forward");
    for (std::size_t k = 0; k < want.grads.size(); ++k) check(got.grads[k], want.grads[k], "grad " + std::to_string(k));
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, CpuSweep, ::testing::ValuesIn(sweep_cases()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace gp
