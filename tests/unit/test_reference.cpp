// The high-precision reference: known values, the error bounds of its Tracked evaluation on the
// registry's cases (finite, the values those of the plain reference), the derivative table's two
// forms, and the errors it raises for malformed calls. Its VJPs against central differences of
// itself are the parity suite's numerical_reference check of every case (adaptive steps,
// Richardson); how small an error its bounds catch is `gradparity selftest` (label selftest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numbers>
#include <random>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/inputs.hpp"
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

struct CallWithInputs {
  OpCall call;
  std::vector<RefTensor> inputs;
  std::string label() const {
    return std::string(op_name(call.kind)) + "(" + attrs_to_string(call.kind, call.attrs) + ")";
  }
};

// Random cotangents.
class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}
  Real normal() { return std::normal_distribution<double>(0.0, 1.0)(rng_); }

 private:
  std::mt19937_64 rng_;
};

// The cases of these tests are the registry's: per op and attribute set, one f64 case of the
// default domains (the hard regimes have their own step lengths, which the parity suite's
// numerical check takes from the case), inputs as the harness draws them: the smallest with at
// least 32 input elements (enough for the 90 % below to mean something), else the largest.
std::vector<CallWithInputs> registry_sample() {
  std::map<std::string, const gp::Case*> smallest;
  auto numel = [](const gp::Case& c) {
    std::int64_t n = 0;
    for (const Shape& s : c.call.input_shapes) n += s.numel();
    return n;
  };
  for (const gp::Case& c : all_cases()) {
    if (c.dtype != DType::f64 || !c.decl.variant.empty()) continue;
    const std::string key = std::string(op_name(c.decl.op)) + "(" + attrs_to_string(c.decl.op, c.decl.attrs) + ")";
    auto [it, added] = smallest.try_emplace(key, &c);
    const std::int64_t n = numel(c), best = numel(*it->second);
    if (!added && (best < 32 ? n > best : n >= 32 && n < best)) it->second = &c;
  }
  std::vector<CallWithInputs> out;
  for (const auto& [key, c] : smallest) {
    CallWithInputs r{c->call, {}};
    for (const HostTensor& t : make_inputs(*c, 1)) r.inputs.push_back(RefTensor::from_host(t));
    out.push_back(std::move(r));
  }
  return out;
}

// The bound a correct kernel gets, as the tolerance model combines the channels (without the
// harness's allowances): every channel once.
Real total(const ErrorBound& e) { return e.det + std::min(e.acc, 6 * e.prob); }

// f32 arithmetic under correct rounding: the tightest device there is.
Bounded bounded_f32(const CallWithInputs& c, const RefTensor& dout) {
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
  for (const CallWithInputs& c : registry_sample()) {
    const OpKind k = c.call.kind;
    {
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

// The reference's checks bound their probes' VJPs alone (bounded_gradients): the same values and
// bounds, bit for bit, as the gradients of the whole evaluation, under a device profile and for
// the long-double reference's own arithmetic.
TEST(ReferenceBounds, GradientsAloneAreTheWholeEvaluationsBitForBit) {
  Gen g(11);
  for (const CallWithInputs& c : registry_sample()) {
    const RefTensor dout = make(c.call.output_shape, [&](std::int64_t) { return g.normal(); });
    OpCall f32 = c.call;
    f32.dtype = DType::f32;
    for (const auto& [call, profile] :
         {std::pair(f32, &correctly_rounded_profile()), std::pair(c.call, static_cast<const MathProfile*>(nullptr))}) {
      const Bounded whole = bounded_evaluate(call, c.inputs, dout, profile);
      const std::vector<RefTensor> alone = bounded_gradients(call, c.inputs, dout, profile);
      ASSERT_EQ(alone.size(), whole.grads.size()) << c.label();
      for (std::size_t k = 0; k < alone.size(); ++k) {
        const std::string what = c.label() + (profile ? " f32" : " long double") + " gradient " + std::to_string(k);
        ASSERT_EQ(alone[k].v.size(), whole.grads[k].v.size()) << what;
        ASSERT_EQ(alone[k].err.size(), whole.grads[k].err.size()) << what;
        for (std::size_t i = 0; i < alone[k].v.size(); ++i) {
          const ErrorBound &a = alone[k].err[i], &w = whole.grads[k].err[i];
          EXPECT_TRUE(alone[k].v[i] == whole.grads[k].v[i] && a.det == w.det && a.acc == w.acc && a.prob == w.prob &&
                      a.spec == w.spec)
              << what << " element " << i;
        }
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

// The reference's dot products run several at a time (reference/linalg.cpp), each still the one
// running sum over k in order: every element equals the plain loop's, bit for bit, at sizes that
// are not multiples of the lanes, batched and with linear's bias.
std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

Real running_dot(std::int64_t n, const std::function<Real(std::int64_t)>& a,
                 const std::function<Real(std::int64_t)>& b) {
  Real s = 0;
  for (std::int64_t t = 0; t < n; ++t) s += a(t) * b(t);
  return s;
}

TEST(ReferenceKnownValues, DotProductsSumInTheirOwnOrder) {
  Gen g(11);
  auto random = [&](Shape shape) { return make(shape, [&](std::int64_t) { return g.normal() * 1e3; }); };
  struct Dims {
    std::int64_t batch, m, k, n;
    bool linear;
  };
  for (const Dims d : {Dims{1, 13, 19, 11, false}, Dims{3, 5, 9, 10, false}, Dims{1, 7, 21, 13, true}}) {
    const std::vector<RefTensor> in =
        d.linear      ? std::vector<RefTensor>{random({d.m, d.k}), random({d.n, d.k}), random({d.n})}
        : d.batch > 1 ? std::vector<RefTensor>{random({d.batch, d.m, d.k}), random({d.batch, d.k, d.n})}
                      : std::vector<RefTensor>{random({d.m, d.k}), random({d.k, d.n})};
    std::vector<Shape> shapes;
    for (const auto& t : in) shapes.push_back(t.shape);
    const OpCall call = make_call(d.linear ? OpKind::linear : OpKind::matmul, {}, DType::f64, shapes);
    const RefTensor out = forward(call, in);
    const RefTensor dout = random(out.shape);
    const std::vector<RefTensor> grads = vjp(call, in, out, dout);
    auto A = [&](std::int64_t bt, std::int64_t i, std::int64_t p) { return in[0].v[at((bt * d.m + i) * d.k + p)]; };
    auto B = [&](std::int64_t bt, std::int64_t p, std::int64_t j) {
      return d.linear ? in[1].v[at(j * d.k + p)] : in[1].v[at((bt * d.k + p) * d.n + j)];
    };
    auto G = [&](std::int64_t bt, std::int64_t i, std::int64_t j) { return dout.v[at((bt * d.m + i) * d.n + j)]; };
    for (std::int64_t bt = 0; bt < d.batch; ++bt) {
      for (std::int64_t i = 0; i < d.m; ++i)
        for (std::int64_t j = 0; j < d.n; ++j) {
          Real c = running_dot(
              d.k, [&](auto p) { return A(bt, i, p); }, [&](auto p) { return B(bt, p, j); });
          if (d.linear) c += in[2].v[at(j)];
          EXPECT_EQ(out.v[at((bt * d.m + i) * d.n + j)], c) << bt << "," << i << "," << j;
        }
      for (std::int64_t i = 0; i < d.m; ++i)
        for (std::int64_t p = 0; p < d.k; ++p)
          EXPECT_EQ(grads[0].v[at((bt * d.m + i) * d.k + p)],
                    running_dot(
                        d.n, [&](auto j) { return G(bt, i, j); }, [&](auto j) { return B(bt, p, j); }));
      for (std::int64_t p = 0; p < d.k; ++p)
        for (std::int64_t j = 0; j < d.n; ++j)
          EXPECT_EQ(grads[1].v[at(d.linear ? j * d.k + p : (bt * d.k + p) * d.n + j)],
                    running_dot(
                        d.m, [&](auto i) { return A(bt, i, p); }, [&](auto i) { return G(bt, i, j); }));
    }
  }
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
    if (op_family(k) != OpFamily::unary || op_is_straight_through(k)) continue;
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
  // make_call refuses n - correction <= 0 (test_shape_tensor.cpp); the reference, given such a
  // call anyway, does too.
  OpCall var = make_call(OpKind::variance, OpAttrs{.axis = 0}, DType::f32, {x.shape});
  var.attrs.correction = 2;
  EXPECT_THROW(forward(var, {x}), Error);  // n - correction = 0
  OpCall ce = make_call(OpKind::cross_entropy, {}, DType::f32, {x.shape, Shape{2}});
  EXPECT_THROW(forward(ce, {x, values({2}, {0, 3})}), Error);    // class 3 of 3
  EXPECT_THROW(forward(ce, {x, values({2}, {0, 0.5})}), Error);  // not an index
  EXPECT_NO_THROW(forward(ce, {x, values({2}, {0, 2})}));
}

}  // namespace
}  // namespace gp::ref
