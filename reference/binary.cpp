// Binary elementwise ops with NumPy broadcasting (core broadcast_plan), driven by one table of
// z = f(a, b), its first partials and its second partials (analytic).
//   forward:  scale = |z| + |a dz/da| + |b dz/db|
//   gradient term of input a at output i: t = dy_i df/da, term scale s = |t| + |a dt/da| + |b dt/db|
//   gradient of a (the sum of the n terms that read a_j): scale = s for n = 1, else
//   n * sum |t| + sum s  (accumulation of n terms, plus each term's own rounding).
// maximum/minimum: the gradient goes to the selected input; on an exact tie (outside the domain)
// each input receives half, the convention PyTorch uses.
#include <array>
#include <cmath>

#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

using Fn = Real (*)(Real a, Real b);

struct BinaryMath {
  OpKind kind;
  Fn f, fa, fb, faa, fab, fbb;
};

Real pick(bool first, bool tie) { return tie ? Real(0.5) : (first ? 1 : 0); }

// name, f, df/da, df/db, d2f/da2, d2f/dadb, d2f/db2. Parenthesise arguments that contain commas.
#define GP_REF_BINARY_TABLE(X)                                                        \
  X(add, a + b, 1, 1, 0, 0, 0)                                                        \
  X(sub, a - b, 1, -1, 0, 0, 0)                                                       \
  X(mul, a* b, b, a, 0, 1, 0)                                                         \
  X(div, a / b, 1 / b, -a / (b * b), 0, -1 / (b * b), 2 * a / (b * b * b))            \
  X(pow, (std::pow(a, b)), (b * std::pow(a, b - 1)), (std::pow(a, b) * std::log(a)),  \
    (b * (b - 1) * std::pow(a, b - 2)), (std::pow(a, b - 1) * (1 + b * std::log(a))), \
    (std::pow(a, b) * std::log(a) * std::log(a)))                                     \
  X(maximum, (a > b ? a : b), pick(a > b, a == b), pick(b > a, a == b), 0, 0, 0)      \
  X(minimum, (a < b ? a : b), pick(a < b, a == b), pick(b < a, a == b), 0, 0, 0)

#define GP_REF_BINARY_ENTRY(name, F, FA, FB, FAA, FAB, FBB) \
  BinaryMath{OpKind::name,                                  \
             [](Real a, Real b) -> Real { return F; },      \
             [](Real a, Real b) -> Real { return FA; },     \
             [](Real a, Real b) -> Real { return FB; },     \
             [](Real a, Real b) -> Real { return FAA; },    \
             [](Real a, Real b) -> Real { return FAB; },    \
             [](Real a, Real b) -> Real { return FBB; }},

const std::array kTable = {GP_REF_BINARY_TABLE(GP_REF_BINARY_ENTRY)};

#undef GP_REF_BINARY_ENTRY
#undef GP_REF_BINARY_TABLE

const BinaryMath& math_of(const OpCall& call) {
  for (const auto& e : kTable)
    if (e.kind == call.kind) return e;
  fail(call, "is not in the binary table");
}

// Accumulates the terms that land on one element of a broadcast input's gradient.
struct GradAccumulator {
  RefTensor g;
  std::vector<Real> abs_sum, term_scale;
  std::vector<std::int64_t> count;

  explicit GradAccumulator(const Shape& s)
      : g(zeros(s)), abs_sum(at(s.numel())), term_scale(at(s.numel())), count(at(s.numel())) {}

  void add(std::int64_t j, Real t, Real s) {
    g.v[at(j)] += t;
    abs_sum[at(j)] += mag(t);
    term_scale[at(j)] += s;
    ++count[at(j)];
  }

  RefTensor finish() {
    for (std::size_t j = 0; j < g.v.size(); ++j)
      g.scale[j] = count[j] > 1 ? real(count[j]) * abs_sum[j] + term_scale[j] : term_scale[j];
    return std::move(g);
  }
};

}  // namespace

RefTensor binary_forward(const OpCall& call, const std::vector<RefTensor>& in) {
  const BinaryMath& m = math_of(call);
  BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  RefTensor z = zeros(call.output_shape);
  if (plan.numel != z.numel()) fail(call, "broadcast size disagrees with the output shape");
  for (std::int64_t i = 0; i < plan.numel; ++i) {
    Real a = in[0].v[at(plan.a_index(i))], b = in[1].v[at(plan.b_index(i))];
    z.v[at(i)] = m.f(a, b);
    z.scale[at(i)] = mag(z.v[at(i)]) + mag(a * m.fa(a, b)) + mag(b * m.fb(a, b));
  }
  return z;
}

std::vector<RefTensor> binary_vjp(const OpCall& call, const std::vector<RefTensor>& in, const RefTensor& dout) {
  const BinaryMath& m = math_of(call);
  BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  GradAccumulator ga(in[0].shape), gb(in[1].shape);
  for (std::int64_t i = 0; i < plan.numel; ++i) {
    std::int64_t ia = plan.a_index(i), ib = plan.b_index(i);
    Real a = in[0].v[at(ia)], b = in[1].v[at(ib)], dy = dout.v[at(i)];
    Real ta = dy * m.fa(a, b), tb = dy * m.fb(a, b);
    Real dab = mag(dy * m.fab(a, b));
    ga.add(ia, ta, mag(ta) + mag(a * dy * m.faa(a, b)) + mag(b) * dab);
    gb.add(ib, tb, mag(tb) + mag(a) * dab + mag(b * dy * m.fbb(a, b)));
  }
  return {ga.finish(), gb.finish()};
}

}  // namespace gp::ref::detail
