// The high-precision reference: known values, VJPs against long-double central differences of
// the reference's own forward for every op of the catalog, the error bounds of its Tracked
// evaluation (finite, zero where a kernel is exact, tight enough to catch a 1e-5 relative error),
// and the errors it raises for malformed calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numbers>
#include <random>

#include "core/error.hpp"
#include "reference/reference.hpp"
#include "reference/unary_math.hpp"

// Cases name only the attributes they set (OpAttrs{.axis = 1}); the rest keep their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace gp::ref {
namespace {

using Fill = std::function<Real(std::int64_t)>;

RefTensor make(const Shape& s, const Fill& fill) {
  RefTensor t;
  t.shape = s;
  for (std::int64_t i = 0; i < s.numel(); ++i) t.v.push_back(fill(i));
  return t;
}
RefTensor values(const Shape& s, std::vector<Real> v) {
  return make(s, [&](std::int64_t i) { return v.at(static_cast<std::size_t>(i)); });
}

struct Case {
  OpCall call;
  std::vector<RefTensor> inputs;
  std::string label() const {
    return std::string(op_name(call.kind)) + "(" + attrs_to_string(call.kind, call.attrs) + ")";
  }
};

class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}
  Real uniform(Real lo, Real hi) { return std::uniform_real_distribution<double>(double(lo), double(hi))(rng_); }
  Real normal() { return std::normal_distribution<double>(0.0, 1.0)(rng_); }
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  // |x| in [lo, hi] with a random sign: keeps kinks and poles at 0 at a margin.
  Real away_from_zero(Real lo, Real hi) { return (integer(0, 1) ? 1 : -1) * uniform(lo, hi); }
  Fill in(Real lo, Real hi) {
    return [=, this](std::int64_t) { return uniform(lo, hi); };
  }
  // Pairwise distinct values (>= 0.2 apart), so maxima are unique and gaps exceed any FD step.
  Fill distinct(std::int64_t n) {
    auto order = std::make_shared<std::vector<std::int64_t>>(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) (*order)[static_cast<std::size_t>(i)] = i;
    std::shuffle(order->begin(), order->end(), rng_);
    return [=, this](std::int64_t i) {
      return Real(0.25) * ((*order)[static_cast<std::size_t>(i)] - n / 2) + uniform(0, 0.05);
    };
  }

 private:
  std::mt19937_64 rng_;
};

Case build(OpKind k, OpAttrs attrs, std::vector<Shape> shapes, std::vector<Fill> fills) {
  Case c{make_call(k, std::move(attrs), DType::f64, shapes), {}};
  for (std::size_t i = 0; i < shapes.size(); ++i) c.inputs.push_back(make(shapes[i], fills[i]));
  return c;
}

std::vector<Case> unary_cases(OpKind k, Gen& g) {
  const Shape s{3, 5};
  auto one = [&](Fill f, OpAttrs a = {}) { return build(k, a, {s}, {f}); };
  auto kinked = [&](std::int64_t) { return g.away_from_zero(0.1, 2); };
  switch (k) {
    case OpKind::log:
    case OpKind::sqrt:
    case OpKind::rsqrt:
      return {one(g.in(0.2, 3))};
    case OpKind::log1p:
      return {one(g.in(-0.5, 3))};
    case OpKind::reciprocal:
      return {one([&](std::int64_t) { return g.away_from_zero(0.25, 2); })};
    case OpKind::pow_scalar: {
      std::vector<Case> out;
      for (double p : {2.0, 0.5, -1.5, 3.7}) out.push_back(one(g.in(0.2, 3), OpAttrs{.p = p}));
      return out;
    }
    case OpKind::abs:
    case OpKind::relu:
      return {one(kinked)};
    case OpKind::leaky_relu:
      return {one(kinked, OpAttrs{.alpha = 0.01}), one(kinked, OpAttrs{.alpha = 0.2})};
    case OpKind::elu:
      return {one(kinked), one(kinked, OpAttrs{.alpha = 0.5})};
    case OpKind::gelu:
      return {one(g.in(-3, 3)), one(g.in(-3, 3), OpAttrs{.gelu = GeluApprox::tanh})};
    default:
      return {one(g.in(-2, 2))};
  }
}

std::vector<Case> binary_cases(OpKind k, Gen& g) {
  std::vector<std::pair<Shape, Shape>> shapes = {{{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{3, 1}, {1, 4}}, {{}, {2, 3}}};
  std::vector<Case> out;
  for (auto& [a, b] : shapes) {
    Fill fa = g.in(-2, 2), fb = g.in(-2, 2);
    if (k == OpKind::div) fb = [&](std::int64_t) { return g.away_from_zero(0.5, 2); };
    if (k == OpKind::pow) fa = g.in(0.2, 3);
    if (k == OpKind::maximum || k == OpKind::minimum) {  // a in j + [0, .4], b in j + [.5, .9]: never within 0.1
      fa = [&](std::int64_t) { return g.integer(-2, 2) + g.uniform(0, 0.4); };
      fb = [&](std::int64_t) { return g.integer(-2, 2) + g.uniform(0.5, 0.9); };
    }
    out.push_back(build(k, {}, {a, b}, {fa, fb}));
  }
  return out;
}

std::vector<Case> cases_for(OpKind k, Gen& g) {
  switch (op_family(k)) {
    case OpFamily::unary:
      return unary_cases(k, g);
    case OpFamily::binary:
      return binary_cases(k, g);
    case OpFamily::reduction: {
      std::vector<Case> out;
      const Shape s{3, 4, 5};
      for (int axis : {0, 1, -1})
        for (bool keep : {false, true})
          for (int corr : {0, 1}) {
            if (corr && k != OpKind::variance) continue;
            out.push_back(
                build(k, OpAttrs{.axis = axis, .keepdim = keep, .correction = corr}, {s}, {g.distinct(s.numel())}));
          }
      return out;
    }
    default:
      break;
  }
  auto normal = [&](std::int64_t) { return g.normal(); };
  switch (k) {
    case OpKind::softmax:
    case OpKind::log_softmax:
      return {build(k, {}, {{3, 5}}, {g.in(-3, 3)}), build(k, OpAttrs{.axis = 1}, {{4, 3, 2}}, {g.in(-3, 3)})};
    case OpKind::layer_norm:
      return {build(k, {}, {{3, 6}, {6}, {6}}, {normal, normal, normal}),
              build(k, OpAttrs{.eps = 1e-3}, {{2, 2, 5}, {5}, {5}}, {g.in(2, 4), normal, normal})};
    case OpKind::matmul:
      return {build(k, {}, {{3, 4}, {4, 5}}, {normal, normal}), build(k, {}, {{2, 3, 4}, {2, 4, 2}}, {normal, normal})};
    case OpKind::linear:
      return {build(k, {}, {{3, 4}, {5, 4}, {5}}, {normal, normal, normal})};
    case OpKind::transpose:
      return {build(k, {}, {{3, 4}}, {normal}), build(k, {}, {{2, 3, 4}}, {normal})};
    case OpKind::reshape:
      return {build(k, OpAttrs{.shape = {2, 6}}, {{3, 4}}, {normal})};
    case OpKind::concat:
      return {build(k, OpAttrs{.axis = 1}, {{2, 3}, {2, 2}, {2, 1}}, {normal, normal, normal}),
              build(k, OpAttrs{.axis = 0}, {{1, 3}, {2, 3}}, {normal, normal})};
    case OpKind::slice:
      return {build(k, OpAttrs{.axis = 1, .start = 1, .stop = 7, .step = 2}, {{5, 7}}, {normal}),
              build(k, OpAttrs{.axis = 0, .start = 2, .stop = 5, .step = 1}, {{5, 3}}, {normal})};
    case OpKind::mse_loss:
      return {build(k, {}, {{3, 4}, {3, 4}}, {normal, normal}),
              build(k, OpAttrs{.reduction = LossReduction::sum}, {{3, 4}, {3, 4}}, {normal, normal})};
    case OpKind::cross_entropy:
      return {build(k, {}, {{4, 5}, {4}}, {g.in(-3, 3), [&](std::int64_t) { return Real(g.integer(0, 4)); }})};
    case OpKind::bce_with_logits:
      return {build(k, {}, {{3, 4}, {3, 4}}, {g.in(-3, 3), g.in(0, 1)})};
    case OpKind::ste_round:
    case OpKind::ste_hardtanh_gate:
      return {build(k, {}, {{3, 4}}, {g.in(-3, 3)})};
    case OpKind::gumbel_softmax:
      return {build(k, OpAttrs{.tau = 0.7}, {{3, 5}, {3, 5}},
                    {g.in(-2, 2), [&](std::int64_t) { return -std::log(-std::log(g.uniform(0.05, 0.95))); }})};
    default:
      return {};
  }
}

bool is_surrogate_gradient(OpKind k) { return op_gradient(k) == GradientKind::surrogate; }

Real dot(const std::vector<Real>& a, const std::vector<Real>& b) {
  Real s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// v^T J u by central differences of the forward, with one Richardson step (error O(h^4)).
Real numeric_vjp(const Case& c, const std::vector<std::vector<Real>>& u, const std::vector<Real>& v) {
  auto phi = [&](Real h) {
    std::vector<RefTensor> moved = c.inputs;
    for (std::size_t k = 0; k < moved.size(); ++k)
      for (std::size_t i = 0; i < moved[k].v.size(); ++i) moved[k].v[i] += h * u[k][i];
    return dot(v, forward(c.call, moved).v);
  };
  auto central = [&](Real h) { return (phi(h) - phi(-h)) / (2 * h); };
  const Real h = 1e-3L;
  return (4 * central(h / 2) - central(h)) / 3;
}

TEST(ReferenceVjp, MatchesCentralDifferencesForEveryOp) {
  Gen g(20240601);
  for (OpKind k : all_ops()) {
    std::vector<Case> cases = cases_for(k, g);
    ASSERT_FALSE(cases.empty()) << op_name(k) << " has no test case: add one to cases_for";
    if (is_surrogate_gradient(k)) continue;  // surrogate gradients: see ChosenGradients
    for (const Case& c : cases) {
      for (int probe = 0; probe < 3; ++probe) {
        std::vector<std::vector<Real>> u;
        for (std::size_t i = 0; i < c.inputs.size(); ++i) {
          bool diff = input_is_differentiable(k, static_cast<int>(i));
          u.push_back(make(c.inputs[i].shape, [&](std::int64_t) { return diff ? g.normal() : 0; }).v);
        }
        RefTensor dout = make(c.call.output_shape, [&](std::int64_t) { return g.normal(); });
        std::vector<RefTensor> grads = vjp(c.call, c.inputs, forward(c.call, c.inputs), dout);
        Real analytic = 0, magnitude = 0;
        for (std::size_t i = 0; i < grads.size(); ++i) {
          if (grads[i].v.empty()) continue;
          analytic += dot(grads[i].v, u[i]);
          for (std::size_t j = 0; j < u[i].size(); ++j) magnitude += std::fabs(grads[i].v[j] * u[i][j]);
        }
        Real numeric = numeric_vjp(c, u, dout.v);
        EXPECT_LE(double(std::fabs(analytic - numeric)), 1e-9 * double(std::fabs(numeric) + magnitude))
            << c.label() << " shapes " << c.call.input_shapes[0].to_string() << " probe " << probe << ": analytic "
            << double(analytic) << " numeric " << double(numeric);
      }
    }
  }
}

// The bound a correct kernel gets, as the tolerance model combines the channels (without the
// harness's allowances): every channel once.
Real total(const ErrorBound& e) { return e.det + std::min(e.acc, 6 * e.prob); }

// f32 arithmetic under correct rounding: the tightest device there is.
Bounded bounded_f32(const Case& c, const RefTensor& dout) {
  OpCall call = c.call;
  call.dtype = DType::f32;
  return bounded_evaluate(call, c.inputs, dout, &correctly_rounded_profile());
}

void expect_sane_bounds(const RefTensor& t, const RefTensor& values, const std::string& what) {
  ASSERT_EQ(t.err.size(), t.v.size()) << what;
  for (std::size_t i = 0; i < t.v.size(); ++i) {
    EXPECT_EQ(t.v[i], values.v[i]) << what << " element " << i << ": a Tracked value differs";
    ASSERT_TRUE(std::isfinite(double(total(t.err[i])))) << what << " bound " << i;
    EXPECT_GE(t.err[i].det, t.err[i].spec) << what << " element " << i;
  }
}

TEST(ReferenceBounds, FiniteAndValuesEqualThePlainReference) {
  Gen g(7);
  for (OpKind k : all_ops()) {
    for (const Case& c : cases_for(k, g)) {
      RefTensor out = forward(c.call, c.inputs);
      RefTensor dout = make(c.call.output_shape, [&](std::int64_t) { return g.normal(); });
      std::vector<RefTensor> grads = vjp(c.call, c.inputs, out, dout);
      const Bounded b = bounded_f32(c, dout);
      expect_sane_bounds(b.output, out, c.label() + " forward");
      ASSERT_EQ(b.grads.size(), c.inputs.size());
      for (std::size_t i = 0; i < grads.size(); ++i) {
        EXPECT_EQ(grads[i].shape, c.inputs[i].shape);
        if (input_is_differentiable(k, static_cast<int>(i)))
          expect_sane_bounds(b.grads[i], grads[i], c.label() + " gradient " + std::to_string(i));
        else
          EXPECT_TRUE(grads[i].v.empty() && b.grads[i].v.empty()) << c.label() << " input " << i;
      }
    }
  }
}

// Tight bounds: an error of 1e-5 (168 u_f32) of a tensor's largest element must exceed the f32
// bound at 90 % of its nonzero elements (an element whose value cancels far below the tensor's
// size has a bound of the size of its terms: layer_norm's dx = r (gh - A - xhat B) in a row of 4).
TEST(ReferenceBounds, TightEnoughToCatchARelativeErrorOf1e5) {
  Gen g(11);
  for (OpKind k : all_ops()) {
    if (op_family(k) == OpFamily::layout) continue;  // exact: any difference fails
    for (const Case& c : cases_for(k, g)) {
      RefTensor dout = make(c.call.output_shape, [&](std::int64_t) { return g.normal(); });
      const Bounded b = bounded_f32(c, dout);
      std::vector<RefTensor> tensors = b.grads;
      tensors.insert(tensors.begin(), b.output);
      for (std::size_t t = 0; t < tensors.size(); ++t) {
        int nonzero = 0, caught = 0;
        Real largest = 0;
        for (Real v : tensors[t].v) largest = std::max(largest, std::fabs(v));
        for (std::size_t i = 0; i < tensors[t].v.size(); ++i) {
          if (tensors[t].v[i] == 0) continue;
          ++nonzero;
          caught += Real(1e-5) * largest > total(tensors[t].err[i]);
        }
        EXPECT_GE(caught, 0.9 * nonzero) << c.label() << (t ? " gradient " + std::to_string(t - 1) : " forward") << ": "
                                         << caught << " of " << nonzero;
      }
    }
  }
}

// --- known values --------------------------------------------------------------------------------

RefTensor run(OpKind k, OpAttrs a, std::vector<RefTensor> in) {
  std::vector<Shape> shapes;
  for (const auto& t : in) shapes.push_back(t.shape);
  return forward(make_call(k, std::move(a), DType::f64, shapes), in);
}

constexpr double kTight = 1e-17;  // long double results, compared in double

TEST(ReferenceKnownValues, ElementwiseAndRowwise) {
  EXPECT_NEAR(double(run(OpKind::exp, {}, {values({1}, {1})}).v[0]), std::numbers::e, kTight);
  RefTensor sm = run(OpKind::softmax, {}, {values({2}, {0, std::log(Real(2))})});
  EXPECT_NEAR(double(sm.v[0]), 1.0 / 3, kTight);
  EXPECT_NEAR(double(sm.v[1]), 2.0 / 3, kTight);
  RefTensor lse = run(OpKind::logsumexp, {}, {values({3}, {0, 0, 0})});
  EXPECT_NEAR(double(lse.v[0]), std::log(3.0), kTight);
  RefTensor var = run(OpKind::variance, OpAttrs{.correction = 1}, {values({4}, {1, 2, 3, 4})});
  EXPECT_NEAR(double(var.v[0]), 5.0 / 3, kTight);
  RefTensor p = run(OpKind::pow, {}, {values({2}, {4, 9}), values({}, {0.5})});
  EXPECT_NEAR(double(p.v[0]), 2, kTight);
  EXPECT_NEAR(double(p.v[1]), 3, kTight);
}

TEST(ReferenceKnownValues, MatmulOfSmallIntegers) {
  RefTensor c = run(OpKind::matmul, {}, {values({2, 2}, {1, 2, 3, 4}), values({2, 2}, {5, 6, 7, 8})});
  EXPECT_EQ(c.v, (std::vector<Real>{19, 22, 43, 50}));
  RefTensor batched = run(OpKind::matmul, {}, {values({2, 1, 2}, {1, 2, 3, 4}), values({2, 2, 1}, {5, 6, 7, 8})});
  EXPECT_EQ(batched.v, (std::vector<Real>{17, 53}));
  // linear: [1 2] W^T + b with W = [[1 0], [1 1], [0 2]], b = [10, 20, 30]
  RefTensor y =
      run(OpKind::linear, {}, {values({1, 2}, {1, 2}), values({3, 2}, {1, 0, 1, 1, 0, 2}), values({3}, {10, 20, 30})});
  EXPECT_EQ(y.v, (std::vector<Real>{11, 23, 34}));
  // Small integers: every product and partial sum is exact in f32, so a correct kernel is too.
  RefTensor x = values({1, 2}, {1, 2}), w = values({3, 2}, {1, 0, 1, 1, 0, 2}), b = values({3}, {10, 20, 30});
  const Bounded exact = bounded_evaluate(make_call(OpKind::linear, {}, DType::f32, {x.shape, w.shape, b.shape}),
                                         {x, w, b}, values({1, 3}, {1, 2, 3}), &correctly_rounded_profile());
  for (const RefTensor* t : {&exact.output, &exact.grads[0], &exact.grads[1], &exact.grads[2]})
    for (const ErrorBound& e : t->err) EXPECT_EQ(total(e), 0);
}

TEST(ReferenceKnownValues, LayerNormOfAKnownRow) {
  // x = [1 2 3 4]: mean 2.5, population variance 1.25.
  OpAttrs a{.eps = 0.75};  // var + eps = 2, so x_hat = (x - 2.5) / sqrt(2)
  RefTensor y =
      run(OpKind::layer_norm, a, {values({1, 4}, {1, 2, 3, 4}), values({4}, {1, 2, 1, 1}), values({4}, {0, 0, 1, 0})});
  const Real r = 1 / std::sqrt(Real(2));
  std::vector<Real> expected = {-1.5L * r, -0.5L * r * 2, 0.5L * r + 1, 1.5L * r};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(double(y.v[i] - expected[i]), 0, 1e-18) << i;
}

TEST(ReferenceKnownValues, Losses) {
  // Row 0: uniform over 3 classes -> ln 3; row 1: [ln 2, 0, 0], target 0 -> -ln(2/4) = ln 2.
  RefTensor ce =
      run(OpKind::cross_entropy, {}, {values({2, 3}, {0, 0, 0, std::log(Real(2)), 0, 0}), values({2}, {1, 0})});
  EXPECT_NEAR(double(ce.v[0]), std::log(6.0) / 2, kTight);
  RefTensor mse = run(OpKind::mse_loss, {}, {values({2}, {1, 2}), values({2}, {0, 0})});
  EXPECT_NEAR(double(mse.v[0]), 2.5, kTight);
  RefTensor bce = run(OpKind::bce_with_logits, {}, {values({2}, {0, 0}), values({2}, {0, 1})});
  EXPECT_NEAR(double(bce.v[0]), std::log(2.0), kTight);
}

TEST(ReferenceKnownValues, LayoutOps) {
  RefTensor t = run(OpKind::transpose, {}, {values({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(t.shape, (Shape{3, 2}));
  EXPECT_EQ(t.v, (std::vector<Real>{1, 4, 2, 5, 3, 6}));
  RefTensor c = run(OpKind::concat, OpAttrs{.axis = 1}, {values({2, 1}, {1, 2}), values({2, 2}, {3, 4, 5, 6})});
  EXPECT_EQ(c.v, (std::vector<Real>{1, 3, 4, 2, 5, 6}));
  RefTensor s =
      run(OpKind::slice, OpAttrs{.axis = 0, .start = 1, .stop = 6, .step = 2}, {values({6}, {0, 1, 2, 3, 4, 5})});
  EXPECT_EQ(s.v, (std::vector<Real>{1, 3, 5}));
}

TEST(ReferenceKnownValues, SteRoundIsHalfToEven) {
  RefTensor r = run(OpKind::ste_round, {}, {values({6}, {0.5, 1.5, 2.5, -0.5, -1.5, 2.4999})});
  EXPECT_EQ(r.v, (std::vector<Real>{0, 2, 2, 0, -2, 2}));
}

TEST(ReferenceChosenGradients, DeclaredSurrogates) {
  RefTensor x = values({4}, {-1.5, -0.5, 0.5, 2.5}), dy = values({4}, {1, 2, 3, 4});
  OpCall round = make_call(OpKind::ste_round, {}, DType::f32, {x.shape});
  EXPECT_EQ(vjp(round, {x}, {}, dy)[0].v, dy.v);  // identity
  OpCall gate = make_call(OpKind::ste_hardtanh_gate, {}, DType::f32, {x.shape});
  EXPECT_EQ(forward(gate, {x}).v, (std::vector<Real>{0, 0, 1, 1}));
  EXPECT_EQ(vjp(gate, {x}, {}, dy)[0].v, (std::vector<Real>{0, 2, 3, 0}));  // dy [|x| < 1]
}

// --- the unary table's calculus -------------------------------------------------------------------

TEST(ReferenceUnaryTable, DerivativesMatchCentralDifferences) {
  for (OpKind k : all_ops()) {
    if (op_family(k) != OpFamily::unary || op_gradient(k) != GradientKind::exact) continue;
    const UnaryMath* m = unary_math(k);
    ASSERT_NE(m, nullptr) << op_name(k);
    for (OpAttrs a : {OpAttrs{.p = 3.7, .alpha = 0.3}, OpAttrs{.p = -1.5, .gelu = GeluApprox::tanh}}) {
      for (Real x : {-1.7L, -0.6L, 0.35L, 1.3L, 2.9L}) {
        bool positive = k == OpKind::log || k == OpKind::sqrt || k == OpKind::rsqrt || k == OpKind::pow_scalar;
        if ((positive || k == OpKind::log1p) && x < 0) x = -x;
        const Real h = 1e-5L;
        auto diff = [&](auto fn) { return (fn(x + h, a) - fn(x - h, a)) / (2 * h); };
        EXPECT_NEAR(double(m->d1(x, a)), double(diff(m->f)), 1e-8 * (1 + std::fabs(double(m->d1(x, a)))))
            << op_name(k) << " x=" << double(x);
        // the form a backward reading its stored y uses is the same derivative
        EXPECT_NEAR(double(m->d1_of_y(x, m->f(x, a), a)), double(m->d1(x, a)),
                    1e-15 * (1 + std::fabs(double(m->d1(x, a)))))
            << op_name(k) << " x=" << double(x);
      }
    }
  }
}

// --- widening and errors --------------------------------------------------------------------------

TEST(ReferenceTensor, FromHostWidensExactly) {
  HostTensor h(DType::f32, Shape{2});
  h.set(0, 0.1);
  h.set(1, -3.0);
  RefTensor r = RefTensor::from_host(h);
  EXPECT_EQ(r.v, (std::vector<Real>{Real(0.1f), -3}));
  EXPECT_TRUE(r.err.empty());
}

TEST(ReferenceErrors, MalformedCallsThrow) {
  RefTensor x = values({2, 3}, {1, 2, 3, 4, 5, 6});
  OpCall exp_call = make_call(OpKind::exp, {}, DType::f32, {x.shape});
  EXPECT_THROW(forward(exp_call, {}), Error);                     // missing input
  EXPECT_THROW(forward(exp_call, {x, x}), Error);                 // one too many
  EXPECT_THROW(forward(exp_call, {values({3, 2}, x.v)}), Error);  // shape differs from the call
  OpCall wrong_out = exp_call;
  wrong_out.output_shape = Shape{6};
  EXPECT_THROW(forward(wrong_out, {x}), Error);
  EXPECT_THROW(vjp(exp_call, {x}, {}, values({6}, x.v)), Error);  // dout of the wrong shape
  OpCall var = make_call(OpKind::variance, OpAttrs{.axis = 0, .correction = 2}, DType::f32, {x.shape});
  EXPECT_THROW(forward(var, {x}), Error);  // n - correction = 0
  OpCall empty = make_call(OpKind::sum, {}, DType::f32, {Shape{2, 0}});
  EXPECT_THROW(forward(empty, {values({2, 0}, {})}), Error);
  OpCall ce = make_call(OpKind::cross_entropy, {}, DType::f32, {x.shape, Shape{2}});
  EXPECT_THROW(forward(ce, {x, values({2}, {0, 3})}), Error);    // class 3 of 3
  EXPECT_THROW(forward(ce, {x, values({2}, {0, 0.5})}), Error);  // not an index
  EXPECT_NO_THROW(forward(ce, {x, values({2}, {0, 2})}));
}

}  // namespace
}  // namespace gp::ref
