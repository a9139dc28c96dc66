// Unary elementwise ops at every elementwise shape, in f32, f64 and the 16-bit storage types.
#include <cmath>
#include <numbers>

#include "cases/decl_helpers.hpp"
#include "cases/registry.hpp"

namespace gp {

namespace {

struct UnaryDecl {
  OpKind op;
  Domain domain;
  OpAttrs attrs = {};
  std::string variant = {};
  double fd_max_step = 0;
};

using decl::hard;

OpAttrs with_p(double p) {
  OpAttrs a;
  a.p = p;
  return a;
}
OpAttrs with_alpha(double alpha) {
  OpAttrs a;
  a.alpha = alpha;
  return a;
}
using decl::with_gelu;

std::vector<UnaryDecl> unary_decls() {
  const double pi = std::numbers::pi;
  // Kinked ops keep |x| >= 0.05; a finite-difference step stays below half of that.
  const Domain kinked = Domain::away_from_zero(-5, 5, 0.05);
  const double kink_step = 0.02;
  std::vector<UnaryDecl> d = {
      {OpKind::neg, Domain::range(-5, 5)},
      {OpKind::square, Domain::range(-5, 5)},
      {OpKind::reciprocal, Domain::away_from_zero(-4, 4, 0.25)},
      {OpKind::abs, kinked, {}, {}, kink_step},
      {OpKind::exp, Domain::range(-10, 10)},
      {OpKind::expm1, Domain::range(-10, 10)},
      {OpKind::log, Domain::range(0.05, 20)},
      {OpKind::log1p, hard(Domain::range(-0.9, 20))},
      {OpKind::sqrt, Domain::range(0.05, 20)},
      {OpKind::rsqrt, Domain::range(0.05, 20)},
      {OpKind::sin, Domain::range(-pi, pi)},
      {OpKind::sin, Domain::range(-20, 20), {}, "wide"},
      {OpKind::cos, Domain::range(-pi, pi)},
      {OpKind::cos, Domain::range(-20, 20), {}, "wide"},
      {OpKind::tanh, Domain::range(-8, 8)},
      {OpKind::sigmoid, Domain::range(-8, 8)},
      {OpKind::softplus, Domain::range(-8, 8)},
      {OpKind::silu, Domain::range(-8, 8)},
      {OpKind::relu, kinked, {}, {}, kink_step},
      {OpKind::elu, kinked, with_alpha(1.0), {}, kink_step},
      {OpKind::gelu, Domain::range(-6, 6), with_gelu(GeluApprox::erf)},
      {OpKind::gelu, Domain::range(-6, 6), with_gelu(GeluApprox::tanh)},
      {OpKind::hardswish, Domain::away_from_kinks(OpKind::hardswish, -6, 6, 0.05), {}, {}, kink_step},
  };
  for (double p : {2.0, 0.5, -1.5, 3.7}) d.push_back({OpKind::pow_scalar, Domain::range(0.1, 10), with_p(p)});
  for (double a : {0.01, 0.2}) d.push_back({OpKind::leaky_relu, kinked, with_alpha(a), {}, kink_step});
  return d;
}

CaseDecl unary_case(const UnaryDecl& u, const Shape& s, std::vector<DType> dtypes, Tier tier = Tier::small) {
  CaseDecl c;
  c.op = u.op;
  c.tier = tier;
  c.attrs = u.attrs;
  c.inputs = {{s, u.domain}};
  c.dtypes = std::move(dtypes);
  c.fd_max_step = u.fd_max_step;
  c.variant = u.variant;
  return c;
}

}  // namespace

void declare_unary_cases(CaseList& list) {
  for (const auto& u : unary_decls())
    for (const Shape& s : elementwise_shapes())
      list.add(unary_case(u, s, {DType::f32, DType::f64, DType::f16, DType::bf16}));
  for (const auto& u : unary_decls()) {
    if (!u.variant.empty()) continue;
    // The size ML libraries' performance reports time elementwise ops at (bench's
    // library-report preset, docs/bench.md).
    if (u.op == OpKind::exp || u.op == OpKind::relu) list.add(unary_case(u, Shape{100, 100}, {DType::f32}));
    // The large tier: 10^8 elements, where a kernel's grid passes 65,535 work groups in one
    // dimension (or its grid-stride loop runs many rounds).
    if (u.op != OpKind::exp && u.op != OpKind::tanh) continue;
    list.add(unary_case(u, Shape{100'000'000}, {DType::f32}, Tier::large));
    // Past 2^31 elements: an index kept in 32 bits wraps (4.3 GB per bf16 tensor, 17 GB of
    // buffers; a device or a machine with less memory SKIPs it, harness/check/memory_fit.hpp).
    if (u.op == OpKind::exp) list.add(unary_case(u, Shape{(std::int64_t{1} << 31) + 4097}, {DType::bf16}, Tier::large));
  }
  // Straight-through ops: the harness checks the backend against the surrogate their catalog row
  // declares (core/op.cpp) instead of against finite differences (zero almost everywhere for a
  // step function) and the report prints why.
  for (const Shape& s : elementwise_shapes()) {
    CaseDecl r;
    r.op = OpKind::ste_round;
    // |x| >= 0.55 keeps round(x) away from zero, so a one-element output is never all zeros.
    Domain away_from_halves = Domain::of(Domain::Kind::half_integer_free, -5, 5, 0.05);
    away_from_halves.min_abs = 0.55;
    r.inputs = {{s, away_from_halves}};
    const std::vector<DType> all_dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16};
    r.dtypes = all_dtypes;
    list.add(std::move(r));

    CaseDecl g;
    g.op = OpKind::ste_hardtanh_gate;
    g.inputs = {{s, Domain::of(Domain::Kind::gate, -2, 2, 0.05)}};
    g.dtypes = all_dtypes;
    list.add(std::move(g));
  }
}

}  // namespace gp
