// The Vulkan backend against the high-precision reference (gp::ref) for EVERY op of the
// catalog, forward and backward, in f32 and f64 (and 16-bit storage for the elementwise
// families), with the validation layer on and zero messages at the end. Inputs are small,
// seeded and inside each op's domain (see shared/OPS.md of the project docs); the bound per element is
// tol * (|reference| + reference error scale).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <set>

#include "reference/reference.hpp"
#include "vulkan_test_util.hpp"

namespace gp {
namespace {

struct Domain {
  double lo = -2, hi = 2;
  double min_abs = 0;           // keep |x| >= min_abs (kinks at 0, poles)
  bool away_from_half = false;  // ste_round: keep x away from k + 0.5
  bool away_from_one = false;   // ste_hardtanh_gate: keep |x| away from 1
};

struct RefCase {
  std::string name;
  OpKind kind;
  OpAttrs attrs;
  std::vector<Shape> shapes;
  std::vector<Domain> domains;  // per input (the last one repeats)
};

OpAttrs with(std::function<void(OpAttrs&)> f) {
  OpAttrs a;
  f(a);
  return a;
}

std::vector<RefCase> all_cases() {
  const Domain any{-2, 2}, pos{0.05, 20}, kink{-3, 3, 0.05};
  std::vector<RefCase> v;
  auto unary = [&](std::string n, OpKind k, Domain d, OpAttrs a = {}) {
    v.push_back({n, k, a, {{16, 33}}, {d}});
    v.push_back({n + "_7", k, a, {{7}}, {d}});
  };
  unary("neg", OpKind::neg, any);
  unary("square", OpKind::square, any);
  unary("reciprocal", OpKind::reciprocal, {-4, 4, 0.25});
  unary("abs", OpKind::abs, kink);
  unary("exp", OpKind::exp, {-10, 10});
  unary("expm1", OpKind::expm1, {-10, 10});
  unary("log", OpKind::log, pos);
  unary("log1p", OpKind::log1p, {-0.9, 20});
  unary("sqrt", OpKind::sqrt, pos);
  unary("rsqrt", OpKind::rsqrt, pos);
  for (double p : {2.0, 0.5, -1.5, 3.7})
    unary("pow_scalar_p" + std::to_string(p), OpKind::pow_scalar, {0.1, 10}, with([&](OpAttrs& a) { a.p = p; }));
  unary("sin", OpKind::sin, {-M_PI, M_PI});
  unary("cos", OpKind::cos, {-M_PI, M_PI});
  unary("sin_wide", OpKind::sin, {-20, 20});
  unary("cos_wide", OpKind::cos, {-20, 20});
  for (auto k : {OpKind::tanh, OpKind::sigmoid, OpKind::softplus, OpKind::silu})
    unary(std::string(op_name(k)), k, {-8, 8});
  unary("relu", OpKind::relu, kink);
  for (double al : {0.01, 0.2}) unary("leaky_relu", OpKind::leaky_relu, kink, with([&](OpAttrs& a) { a.alpha = al; }));
  unary("elu", OpKind::elu, kink, with([](OpAttrs& a) { a.alpha = 1.3; }));
  unary("gelu_erf", OpKind::gelu, {-6, 6});
  unary("gelu_tanh", OpKind::gelu, {-6, 6}, with([](OpAttrs& a) { a.gelu = GeluApprox::tanh; }));

  const std::vector<std::pair<Shape, Shape>> bshapes = {
      {{16, 33}, {16, 33}}, {{64, 40}, {40}}, {{7, 1}, {1, 9}}, {{}, {5, 3}}, {{2, 3, 4}, {3, 1}}};
  for (auto k : {OpKind::add, OpKind::sub, OpKind::mul, OpKind::maximum, OpKind::minimum})
    for (std::size_t i = 0; i < bshapes.size(); ++i)
      v.push_back(
          {std::string(op_name(k)) + "_b" + std::to_string(i), k, {}, {bshapes[i].first, bshapes[i].second}, {any}});
  for (std::size_t i = 0; i < bshapes.size(); ++i) {
    v.push_back(
        {"div_b" + std::to_string(i), OpKind::div, {}, {bshapes[i].first, bshapes[i].second}, {any, {-3, 3, 0.25}}});
    v.push_back(
        {"pow_b" + std::to_string(i), OpKind::pow, {}, {bshapes[i].first, bshapes[i].second}, {{0.1, 10}, {-2, 3}}});
  }

  for (auto k : {OpKind::sum, OpKind::mean, OpKind::max, OpKind::logsumexp, OpKind::variance}) {
    for (int axis : {0, 1, -1}) {
      for (bool keep : {false, true}) {
        OpAttrs a;
        a.axis = axis;
        a.keepdim = keep;
        a.correction = k == OpKind::variance && keep ? 1 : 0;
        v.push_back({std::string(op_name(k)) + "_ax" + std::to_string(axis) + (keep ? "_keep" : ""),
                     k,
                     a,
                     {{3, 300, 5}},
                     {any}});
      }
    }
    v.push_back({std::string(op_name(k)) + "_1d", k, {}, {{127}}, {any}});
  }
  for (auto k : {OpKind::softmax, OpKind::log_softmax}) {
    v.push_back({std::string(op_name(k)) + "_last", k, {}, {{16, 33}}, {{-5, 5}}});
    v.push_back({std::string(op_name(k)) + "_ax0", k, with([](OpAttrs& a) { a.axis = 0; }), {{7, 3, 4}}, {{-5, 5}}});
  }
  v.push_back({"layer_norm", OpKind::layer_norm, {}, {{7, 33}, {33}, {33}}, {any}});
  v.push_back({"layer_norm_3d",
               OpKind::layer_norm,
               with([](OpAttrs& a) { a.eps = 1e-3; }),
               {{2, 5, 300}, {300}, {300}},
               {any}});

  v.push_back({"matmul", OpKind::matmul, {}, {{7, 33}, {33, 5}}, {any}});
  v.push_back({"matmul_k1", OpKind::matmul, {}, {{16, 1}, {1, 9}}, {any}});
  v.push_back({"matmul_k128", OpKind::matmul, {}, {{5, 128}, {128, 17}}, {any}});
  v.push_back({"matmul_batched", OpKind::matmul, {}, {{3, 7, 33}, {3, 33, 18}}, {any}});
  v.push_back({"linear", OpKind::linear, {}, {{16, 33}, {7, 33}, {7}}, {any}});
  v.push_back({"linear_big_batch", OpKind::linear, {}, {{128, 7}, {5, 7}, {5}}, {any}});

  v.push_back({"transpose", OpKind::transpose, {}, {{16, 33}}, {any}});
  v.push_back({"transpose_3d", OpKind::transpose, {}, {{3, 7, 5}}, {any}});
  v.push_back({"reshape", OpKind::reshape, with([](OpAttrs& a) { a.shape = {33, 16}; }), {{16, 33}}, {any}});
  v.push_back(
      {"concat", OpKind::concat, with([](OpAttrs& a) { a.axis = 1; }), {{4, 3, 2}, {4, 5, 2}, {4, 1, 2}}, {any}});
  v.push_back({"concat_ax0", OpKind::concat, with([](OpAttrs& a) { a.axis = 0; }), {{2, 7}, {5, 7}}, {any}});
  v.push_back({"slice",
               OpKind::slice,
               with([](OpAttrs& a) { a.axis = 1, a.start = 2, a.stop = 30, a.step = 3; }),
               {{5, 33, 2}},
               {any}});
  v.push_back({"slice_ax0",
               OpKind::slice,
               with([](OpAttrs& a) { a.axis = 0, a.start = 1, a.stop = 7, a.step = 1; }),
               {{7}},
               {any}});

  v.push_back({"mse_mean", OpKind::mse_loss, {}, {{16, 33}, {16, 33}}, {any}});
  v.push_back(
      {"mse_sum", OpKind::mse_loss, with([](OpAttrs& a) { a.reduction = LossReduction::sum; }), {{127}, {127}}, {any}});
  v.push_back({"cross_entropy", OpKind::cross_entropy, {}, {{16, 33}, {16}}, {{-4, 4}}});
  v.push_back({"bce_with_logits", OpKind::bce_with_logits, {}, {{16, 33}, {16, 33}}, {{-6, 6}, {0, 1}}});

  v.push_back({"ste_round", OpKind::ste_round, {}, {{16, 33}}, {{-5, 5, 0, true}}});
  v.push_back({"ste_hardtanh_gate", OpKind::ste_hardtanh_gate, {}, {{16, 33}}, {{-2, 2, 0.05, false, true}}});
  v.push_back({"gumbel_softmax",
               OpKind::gumbel_softmax,
               with([](OpAttrs& a) { a.tau = 0.5; }),
               {{16, 33}, {16, 33}},
               {{-3, 3}, {-2, 2}}});
  return v;
}

double draw(std::mt19937_64& rng, const Domain& d) {
  std::uniform_real_distribution<double> u(d.lo, d.hi);
  for (;;) {
    double x = u(rng);
    if (std::abs(x) < d.min_abs) continue;
    if (d.away_from_half && std::abs(x - std::floor(x) - 0.5) < 0.05) continue;
    if (d.away_from_one && std::abs(std::abs(x) - 1) < 0.05) continue;
    return x;
  }
}

// maximum/minimum inputs must keep |a - b| >= 0.05 at every broadcast pair (checked, not assumed).
bool ties(const OpCall& c, const HostTensor& a, const HostTensor& b) {
  if (c.kind != OpKind::maximum && c.kind != OpKind::minimum) return false;
  BroadcastPlan p = broadcast_plan(a.shape(), b.shape());
  for (std::int64_t i = 0; i < p.numel; ++i)
    if (std::abs(a.get(p.a_index(i)) - b.get(p.b_index(i))) < 0.04) return true;
  return false;
}

std::vector<HostTensor> make_inputs(const RefCase& rc, const OpCall& call, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::vector<HostTensor> in;
    for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
      HostTensor t(call.input_dtypes[k], call.input_shapes[k]);
      const Domain& d = rc.domains[std::min(k, rc.domains.size() - 1)];
      for (std::int64_t i = 0; i < t.numel(); ++i) {
        if (t.dtype() == DType::i32)
          t.as<std::int32_t>()[static_cast<std::size_t>(i)] =
              static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(call.input_shapes[0][1]));
        else if (call.kind == OpKind::maximum || call.kind == OpKind::minimum)  // a on a 0.1 grid, b halfway
          t.set(i, std::round(draw(rng, d) * 10) / 10 + (k == 1 ? 0.05 : 0.0));
        else
          t.set(i, draw(rng, d));
      }
      in.push_back(std::move(t));
    }
    if (in.size() == 2 && ties(call, in[0], in[1])) continue;
    return in;
  }
  ADD_FAILURE() << rc.name << ": no tie-free inputs";
  return {};
}

// Counts elements outside tol * (|ref| + scale); reports the first few.
int compare(const std::string& what, const HostTensor& got, const ref::RefTensor& want, double tol) {
  EXPECT_EQ(got.numel(), want.numel()) << what;
  int bad = 0;
  for (std::int64_t i = 0; i < std::min(got.numel(), want.numel()); ++i) {
    auto w = static_cast<double>(want.v[static_cast<std::size_t>(i)]);
    auto s = static_cast<double>(want.scale[static_cast<std::size_t>(i)]);
    // plus one ULP of the stored result: covers the final rounding to 16-bit storage, subnormals included
    double bound = tol * (std::abs(w) + s) +
                   (got.dtype() == DType::f16 || got.dtype() == DType::bf16 ? ulp_of(got.dtype(), w) : 1e-300);
    double err = std::abs(got.get(i) - w);
    if (!(err <= bound)) {
      if (++bad <= 3)
        ADD_FAILURE() << what << " element " << i << ": got " << got.get(i) << ", reference " << w << ", error " << err
                      << " > bound " << bound;
    }
  }
  return bad;
}

class VulkanReference : public ::testing::TestWithParam<DType> {};

TEST_P(VulkanReference, EveryOpForwardAndBackward) {
  DType dt = GetParam();
  std::string dir = vktest::temp_cache_dir("ref");
  std::string why;
  auto be = vktest::make_backend(dir, why);
  if (!be) GTEST_SKIP() << why;
  bool sixteen = dt == DType::f16 || dt == DType::bf16;
  // f32/f64 per the brief; 16-bit storage: a few ULPs of the storage type per rounding.
  double tol = dt == DType::f64 ? 1e-10 : dt == DType::f32 ? 1e-4 : 8 * unit_roundoff(dt) * 4;
  auto start = std::chrono::steady_clock::now();
  std::set<OpKind> covered;
  int checked = 0, failed_cases = 0;
  std::uint64_t seed = 1234;
  for (const RefCase& rc : all_cases()) {
    if (sixteen && op_family(rc.kind) != OpFamily::unary && op_family(rc.kind) != OpFamily::binary &&
        op_family(rc.kind) != OpFamily::layout)
      continue;
    if (sixteen && (rc.name.find("wide") != std::string::npos)) continue;  // f32 sin/cos of |x| up to 20
    OpCall call = make_call(rc.kind, rc.attrs, dt, rc.shapes, rc.name + "/" + std::string(dtype_name(dt)));
    SCOPED_TRACE(call.case_id);
    Support s = be->supports(call);
    if (!s.ok) GTEST_SKIP() << s.reason;
    auto inputs = make_inputs(rc, call, ++seed);
    HostTensor dout(dt, call.output_shape);
    std::mt19937_64 rng(seed * 7);
    for (std::int64_t i = 0; i < dout.numel(); ++i) dout.set(i, draw(rng, {-1, 1}));

    std::vector<ref::RefTensor> rin;
    for (const auto& t : inputs) rin.push_back(ref::RefTensor::from_host(t));
    ref::RefTensor rout = ref::forward(call, rin);
    auto rgrads = ref::vjp(call, rin, rout, ref::RefTensor::from_host(dout));
    auto got = vktest::run(*be, call, inputs, &dout);

    int bad = compare(call.case_id + " forward", got.out, rout, tol);
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (input_is_differentiable(rc.kind, static_cast<int>(k)))
        bad += compare(call.case_id + " grad " + std::to_string(k), got.grads[k], rgrads[k], tol);
    failed_cases += bad > 0;
    covered.insert(rc.kind);
    ++checked;
  }
  auto messages = be->take_validation_messages();
  for (const auto& m : messages) ADD_FAILURE() << "validation: " << m;
  EXPECT_TRUE(messages.empty());
  EXPECT_TRUE(be->take_canary_violations().empty());
  EXPECT_EQ(failed_cases, 0);
  if (!sixteen) {
    for (OpKind k : all_ops()) EXPECT_TRUE(covered.count(k)) << op_name(k) << " has no reference case";
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[vulkan reference] %s: %d cases, %d failing, %.1f s\n", dtype_name(dt).data(), checked, failed_cases,
              secs);
  be.reset();
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, VulkanReference, ::testing::Values(DType::f32, DType::f64, DType::f16, DType::bf16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace gp
