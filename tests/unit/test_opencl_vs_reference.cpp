// Every op of the catalog on the OpenCL backend (first device; PoCL in CI), forward and backward,
// against the high-precision reference (reference/), in f32, f64, f16 and bf16. Bound per element:
// |device - ref| <= tol * (|ref| + scale) + one subnormal step, with scale the reference's error
// scale and tol 1e-4 (f32), 1e-10 (f64) or 8 u (f16 / bf16: storage only, f32 arithmetic). Inputs
// are seeded and drawn inside each op's domain (shared/OPS.md of the project docs); shapes are deliberately not
// multiples of the work-group sizes.
#include <gtest/gtest.h>

#if defined(GP_HAS_OPENCL)
#include <cmath>
#include <cstdint>
#include <numbers>

#include "reference/reference.hpp"
#include "unit/opencl_test_util.hpp"

namespace gp {
namespace {

// How one input is drawn.
struct Draw {
  enum Kind { uniform, apart_from_input0, unique_row_max, classes, gate } kind = uniform;
  double lo = -1, hi = 1, min_abs = 0;
  int n_classes = 0;
};
Draw U(double lo, double hi, double min_abs = 0) { return {Draw::uniform, lo, hi, min_abs}; }

struct RefCase {
  std::string label;
  OpKind op;
  OpAttrs attrs;
  std::vector<Shape> shapes;
  std::vector<Draw> draws;
};

struct Rng {  // splitmix64: tiny, seeded, the same on every platform
  std::uint64_t s;
  double uniform() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  }
  double in(double lo, double hi) { return lo + (hi - lo) * uniform(); }
};

std::vector<RefCase> all_cases() {
  std::vector<RefCase> c;
  auto add = [&](std::string label, OpKind op, std::vector<Shape> shapes, std::vector<Draw> draws, OpAttrs a = {}) {
    c.push_back({std::move(label), op, std::move(a), std::move(shapes), std::move(draws)});
  };
  const Shape m{16, 33};
  const double pi = std::numbers::pi;
  // Unary.
  add("neg", OpKind::neg, {m}, {U(-3, 3)});
  add("square", OpKind::square, {m}, {U(-3, 3)});
  add("reciprocal", OpKind::reciprocal, {m}, {U(-4, 4, 0.25)});
  add("abs", OpKind::abs, {m}, {U(-3, 3, 0.05)});
  add("exp", OpKind::exp, {m}, {U(-10, 10)});
  add("expm1", OpKind::expm1, {m}, {U(-10, 10)});
  add("log", OpKind::log, {m}, {U(0.05, 20)});
  add("log1p", OpKind::log1p, {m}, {U(-0.9, 20)});
  add("sqrt", OpKind::sqrt, {m}, {U(0.05, 20)});
  add("rsqrt", OpKind::rsqrt, {m}, {U(0.05, 20)});
  for (double p : {2.0, 0.5, -1.5, 3.7}) {
    OpAttrs a;
    a.p = p;
    add(std::string("pow_scalar_p") + (p < 0 ? "m" : "") + std::to_string(static_cast<int>(std::fabs(p) * 10)),
        OpKind::pow_scalar, {m}, {U(0.1, 10)}, a);
  }
  add("sin", OpKind::sin, {m}, {U(-pi, pi)});
  add("cos", OpKind::cos, {m}, {U(-pi, pi)});
  add("sin_wide", OpKind::sin, {m}, {U(-20, 20)});
  add("tanh", OpKind::tanh, {m}, {U(-8, 8)});
  add("sigmoid", OpKind::sigmoid, {m}, {U(-8, 8)});
  add("softplus", OpKind::softplus, {m}, {U(-8, 8)});
  add("silu", OpKind::silu, {m}, {U(-8, 8)});
  add("relu", OpKind::relu, {Shape{127}}, {U(-3, 3, 0.05)});
  for (double alpha : {0.01, 0.2}) {
    OpAttrs a;
    a.alpha = alpha;
    add("leaky_relu_a" + std::to_string(static_cast<int>(alpha * 100)), OpKind::leaky_relu, {m}, {U(-3, 3, 0.05)}, a);
  }
  add("elu", OpKind::elu, {m}, {U(-3, 3, 0.05)});
  for (GeluApprox g : {GeluApprox::erf, GeluApprox::tanh}) {
    OpAttrs a;
    a.gelu = g;
    add(g == GeluApprox::erf ? "gelu_erf" : "gelu_tanh", OpKind::gelu, {m}, {U(-6, 6)}, a);
  }
  // Binary, with the broadcast shapes of OPS.md.
  struct BinShape {
    const char* name;
    Shape a, b;
  };
  for (const auto& s : {BinShape{"same", {7, 33}, {7, 33}}, BinShape{"bias", {16, 33}, {33}},
                        BinShape{"outer", {7, 1}, {1, 9}}, BinShape{"scalar", {}, {5, 7}}}) {
    std::string sfx = std::string("_") + s.name;
    add("add" + sfx, OpKind::add, {s.a, s.b}, {U(-3, 3), U(-3, 3)});
    add("sub" + sfx, OpKind::sub, {s.a, s.b}, {U(-3, 3), U(-3, 3)});
    add("mul" + sfx, OpKind::mul, {s.a, s.b}, {U(-3, 3), U(-3, 3)});
    add("div" + sfx, OpKind::div, {s.a, s.b}, {U(-3, 3), U(-3, 3, 0.25)});
    add("pow" + sfx, OpKind::pow, {s.a, s.b}, {U(0.1, 10), U(-2, 3)});
    if (s.a == s.b) {  // the domain (|x - y| >= 0.05) is drawn elementwise
      add("maximum" + sfx, OpKind::maximum, {s.a, s.b}, {U(-3, 3), {Draw::apart_from_input0, -3, 3, 0.05}});
      add("minimum" + sfx, OpKind::minimum, {s.a, s.b}, {U(-3, 3), {Draw::apart_from_input0, -3, 3, 0.05}});
    }
  }
  // Reductions.
  struct Red {
    const char* name;
    Shape s;
    int axis;
    bool keep;
  };
  for (const auto& r : {Red{"rows", {16, 33}, -1, false}, Red{"cols_keep", {16, 33}, 0, true},
                        Red{"mid", {4, 7, 9}, 1, false}, Red{"long", {2, 300}, 1, true}}) {
    OpAttrs a;
    a.axis = r.axis;
    a.keepdim = r.keep;
    std::string sfx = std::string("_") + r.name;
    add("sum" + sfx, OpKind::sum, {r.s}, {U(-3, 3)}, a);
    add("mean" + sfx, OpKind::mean, {r.s}, {U(-3, 3)}, a);
    add("max" + sfx, OpKind::max, {r.s}, {{Draw::unique_row_max, -3, 3}}, a);
    add("logsumexp" + sfx, OpKind::logsumexp, {r.s}, {U(-5, 5)}, a);
    add("variance" + sfx, OpKind::variance, {r.s}, {U(-3, 3)}, a);
    a.correction = 1;
    add("variance_c1" + sfx, OpKind::variance, {r.s}, {U(-3, 3)}, a);
  }
  // Row-wise.
  for (int axis : {-1, 0}) {
    OpAttrs a;
    a.axis = axis;
    add(std::string("softmax_") + (axis < 0 ? "last" : "first"), OpKind::softmax, {m}, {U(-5, 5)}, a);
    add(std::string("log_softmax_") + (axis < 0 ? "last" : "first"), OpKind::log_softmax, {m}, {U(-5, 5)}, a);
  }
  {
    OpAttrs a;
    a.axis = 1;
    add("softmax_mid", OpKind::softmax, {Shape{4, 7, 9}}, {U(-5, 5)}, a);
  }
  add("layer_norm", OpKind::layer_norm, {m, Shape{33}, Shape{33}}, {U(-3, 3), U(0.5, 1.5), U(-1, 1)});
  add("layer_norm_wide", OpKind::layer_norm, {Shape{3, 300}, Shape{300}, Shape{300}},
      {U(-3, 3), U(0.5, 1.5), U(-1, 1)});
  // Linear algebra and layout.
  add("matmul_2d", OpKind::matmul, {Shape{7, 33}, Shape{33, 5}}, {U(-1, 1), U(-1, 1)});
  add("matmul_k1", OpKind::matmul, {Shape{16, 1}, Shape{1, 8}}, {U(-1, 1), U(-1, 1)});
  add("matmul_k128", OpKind::matmul, {Shape{5, 128}, Shape{128, 3}}, {U(-1, 1), U(-1, 1)});
  add("matmul_batched", OpKind::matmul, {Shape{3, 7, 17}, Shape{3, 17, 9}}, {U(-1, 1), U(-1, 1)});
  add("linear", OpKind::linear, {Shape{7, 33}, Shape{5, 33}, Shape{5}}, {U(-1, 1), U(-1, 1), U(-1, 1)});
  add("transpose_2d", OpKind::transpose, {Shape{7, 9}}, {U(-3, 3)});
  add("transpose_3d", OpKind::transpose, {Shape{3, 7, 9}}, {U(-3, 3)});
  {
    OpAttrs a;
    a.shape = {4, 15};
    add("reshape", OpKind::reshape, {Shape{6, 10}}, {U(-3, 3)}, a);
    OpAttrs c1;
    c1.axis = 1;
    add("concat_axis1", OpKind::concat, {Shape{4, 3}, Shape{4, 5}, Shape{4, 2}}, {U(-3, 3), U(-3, 3), U(-3, 3)}, c1);
    OpAttrs c0;
    c0.axis = 0;
    add("concat_axis0", OpKind::concat, {Shape{2, 6}, Shape{3, 6}}, {U(-3, 3), U(-3, 3)}, c0);
    OpAttrs s;
    s.axis = 1;
    s.start = 1;
    s.stop = 12;
    s.step = 3;
    add("slice", OpKind::slice, {Shape{10, 13}}, {U(-3, 3)}, s);
  }
  // Losses.
  {
    OpAttrs mean, sum;
    sum.reduction = LossReduction::sum;
    add("mse_mean", OpKind::mse_loss, {Shape{7, 9}, Shape{7, 9}}, {U(-3, 3), U(-3, 3)}, mean);
    add("mse_sum", OpKind::mse_loss, {Shape{7, 9}, Shape{7, 9}}, {U(-3, 3), U(-3, 3)}, sum);
    add("mse_big", OpKind::mse_loss, {Shape{64, 128}, Shape{64, 128}}, {U(-3, 3), U(-3, 3)}, mean);
    add("cross_entropy", OpKind::cross_entropy, {Shape{7, 10}, Shape{7}}, {U(-4, 4), {Draw::classes, 0, 0, 0, 10}});
    add("bce_with_logits", OpKind::bce_with_logits, {Shape{7, 9}, Shape{7, 9}}, {U(-4, 4), U(0, 1)});
  }
  // Chosen gradients.
  add("ste_round", OpKind::ste_round, {m}, {U(-3, 3)});
  add("ste_hardtanh_gate", OpKind::ste_hardtanh_gate, {m}, {{Draw::gate, -3, 3, 0.05}});
  {
    OpAttrs a;
    a.tau = 0.5;
    add("gumbel_softmax", OpKind::gumbel_softmax, {Shape{7, 9}, Shape{7, 9}}, {U(-3, 3), U(-2, 2)}, a);
  }
  return c;
}

std::vector<HostTensor> draw_inputs(const RefCase& rc, const OpCall& call, std::uint64_t seed) {
  Rng rng{seed};
  std::vector<HostTensor> in;
  for (std::size_t k = 0; k < rc.shapes.size(); ++k) {
    const Draw& d = rc.draws[k];
    HostTensor t(call.input_dtypes[k], rc.shapes[k]);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
      double v = rng.in(d.lo, d.hi);
      switch (d.kind) {
        case Draw::uniform:
          if (std::fabs(v) < d.min_abs) v = v < 0 ? -d.min_abs - rng.in(0, 0.1) : d.min_abs + rng.in(0, 0.1);
          break;
        case Draw::apart_from_input0:
          v = in[0].get(i) + (rng.uniform() < 0.5 ? -1 : 1) * (d.min_abs + rng.in(0, 1));
          break;
        case Draw::gate:
          while (std::fabs(v) < d.min_abs || std::fabs(std::fabs(v) - 1) < d.min_abs) v = rng.in(d.lo, d.hi);
          break;
        case Draw::classes:
          v = std::floor(rng.uniform() * d.n_classes);
          break;
        case Draw::unique_row_max:
          break;  // fixed below
      }
      t.set(i, v);
    }
    if (d.kind == Draw::unique_row_max) {  // lift one element per line 0.5 above the rest
      AxisSplit sp = split_at_axis(t.shape(), call.attrs.axis);
      for (std::int64_t o = 0; o < sp.outer; ++o)
        for (std::int64_t ii = 0; ii < sp.inner; ++ii) {
          std::int64_t j = static_cast<std::int64_t>(rng.uniform() * sp.n);
          t.set((o * sp.n + j) * sp.inner + ii, d.hi + 0.5);
        }
    }
    in.push_back(std::move(t));
  }
  return in;
}

struct Param {
  RefCase rc;
  DType dtype;
};

void PrintTo(const Param& p, std::ostream* os) { *os << p.rc.label << "/" << dtype_name(p.dtype); }

class OpenclVsReference : public ::testing::TestWithParam<Param> {};

// Asserts |got - ref| <= tol (|ref| + scale) elementwise; reports the worst element.
// The absolute floor is one subnormal step of the storage dtype: results below the normal range
// (tiny f16 gradients) cannot be stored more precisely than that.
void expect_close(const std::string& what, const HostTensor& got, const ref::RefTensor& want, double tol) {
  const double floor = ulp_of(got.dtype(), 0.0);
  ASSERT_EQ(got.numel(), want.numel()) << what;
  double worst = 0;
  std::int64_t worst_i = -1;
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    double r = static_cast<double>(want.v[i]);
    double s = want.scale.empty() ? 0.0 : static_cast<double>(want.scale[i]);
    double bound = tol * (std::fabs(r) + s) + floor;
    double ratio = std::fabs(got.get(i) - r) / bound;
    if (!(ratio <= worst)) {  // NaN counts as worst
      worst = std::isnan(ratio) ? INFINITY : ratio;
      worst_i = i;
    }
  }
  EXPECT_LE(worst, 1.0) << what << ": worst element " << worst_i << " got " << got.get(worst_i) << " want "
                        << static_cast<double>(want.v[worst_i]) << " (error / bound = " << worst << ")";
}

TEST_P(OpenclVsReference, ForwardAndBackward) {
  const Param& p = GetParam();
  std::string why;
  opencl::OpenclBackend* backend = testutil::shared_opencl_backend(&why);
  if (!backend) GTEST_SKIP() << "no OpenCL device: " << why;
  OpCall call =
      make_call(p.rc.op, p.rc.attrs, p.dtype, p.rc.shapes, p.rc.label + "-" + std::string(dtype_name(p.dtype)));
  Support s = backend->supports(call);
  if (!s.ok) GTEST_SKIP() << s.reason;
  std::vector<HostTensor> inputs = draw_inputs(p.rc, call, 0xC0FFEEull + std::hash<std::string>{}(p.rc.label));
  Rng rng{42};
  HostTensor dout = testutil::make_tensor(p.dtype, call.output_shape, [&](auto) { return rng.in(-1, 1); });

  auto queue = backend->create_queue();
  testutil::OpRun run = testutil::run_op(*backend, *queue, call, inputs, &dout);
  EXPECT_TRUE(backend->take_canary_violations().empty());

  std::vector<ref::RefTensor> rin;
  for (const auto& t : inputs) rin.push_back(ref::RefTensor::from_host(t));
  ref::RefTensor rout = ref::forward(call, rin);
  // The backward is compared with the reference VJP at the reference's own forward value.
  std::vector<ref::RefTensor> rgrads = ref::vjp(call, rin, rout, ref::RefTensor::from_host(dout));
  // f16 / bf16 store one correctly rounded result of f32 arithmetic (inputs are exact in both).
  const double tol = p.dtype == DType::f64 ? 1e-10 : p.dtype == DType::f32 ? 1e-4 : 8 * unit_roundoff(p.dtype);
  expect_close("forward", run.out, rout, tol);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!run.has_grad[k]) continue;
    expect_close("gradient of input " + std::to_string(k), run.grads[k], rgrads[k], tol);
  }
}

std::vector<Param> all_params() {
  std::vector<Param> ps;
  for (const auto& rc : all_cases())
    for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16}) ps.push_back({rc, d});
  return ps;
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpenclVsReference, ::testing::ValuesIn(all_params()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return i.param.rc.label + "_" + std::string(dtype_name(i.param.dtype));
                         });

// Every op of the catalog appears in the sweep above.
TEST(OpenclVsReferenceCoverage, EveryOpHasACase) {
  auto cases = all_cases();
  for (OpKind k : all_ops()) {
    bool found = false;
    for (const auto& c : cases) found = found || c.op == k;
    EXPECT_TRUE(found) << op_name(k);
  }
}

}  // namespace
}  // namespace gp
#else
TEST(OpenclVsReference, NotBuilt) { GTEST_SKIP() << "OpenCL backend not enabled in this build"; }
#endif
