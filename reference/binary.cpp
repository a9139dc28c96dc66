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

using std::log;
using std::pow;

template <class R>
struct BinaryMath {
  using Fn = R (*)(R a, R b);
  OpKind kind;
  Fn f, fa, fb, faa, fab, fbb;
};

template <class R>
R pick(bool first, bool tie) {
  return tie ? R(0.5) : R(first ? 1 : 0);
}

// name, f, df/da, df/db, d2f/da2, d2f/dadb, d2f/db2. Parenthesise arguments that contain commas.
#define GP_REF_BINARY_TABLE(X)                                                                  \
  X(add, a + b, R(1), R(1), R(0), R(0), R(0))                                                   \
  X(sub, a - b, R(1), R(-1), R(0), R(0), R(0))                                                  \
  X(mul, a* b, b, a, R(0), R(1), R(0))                                                          \
  X(div, a / b, 1 / b, -a / (b * b), R(0), -1 / (b * b), 2 * a / (b * b * b))                   \
  X(pow, (pow(a, b)), (b * pow(a, b - 1)), (pow(a, b) * log(a)), (b * (b - 1) * pow(a, b - 2)), \
    (pow(a, b - 1) * (1 + b * log(a))), (pow(a, b) * log(a) * log(a)))                          \
  X(maximum, (a > b ? a : b), pick<R>(a > b, a == b), pick<R>(b > a, a == b), R(0), R(0), R(0)) \
  X(minimum, (a < b ? a : b), pick<R>(a < b, a == b), pick<R>(b < a, a == b), R(0), R(0), R(0))

#define GP_REF_BINARY_ENTRY(name, F, FA, FB, FAA, FAB, FBB) \
  BinaryMath<R>{OpKind::name,                               \
                [](R a, R b) -> R { return F; },            \
                [](R a, R b) -> R { return FA; },           \
                [](R a, R b) -> R { return FB; },           \
                [](R a, R b) -> R { return FAA; },          \
                [](R a, R b) -> R { return FAB; },          \
                [](R a, R b) -> R { return FBB; }},

template <class R>
const auto& table() {
  static const std::array kTable = {GP_REF_BINARY_TABLE(GP_REF_BINARY_ENTRY)};
  return kTable;
}

#undef GP_REF_BINARY_ENTRY
#undef GP_REF_BINARY_TABLE

template <class R>
const BinaryMath<R>& math_of(const OpCall& call) {
  for (const auto& e : table<R>())
    if (e.kind == call.kind) return e;
  fail(call, "is not in the binary table");
}

// Accumulates the terms that land on one element of a broadcast input's gradient.
template <class R>
struct GradAccumulator {
  BasicRefTensor<R> g;
  std::vector<R> abs_sum, term_scale;
  std::vector<std::int64_t> count;

  explicit GradAccumulator(const Shape& s)
      : g(zeros<R>(s)), abs_sum(at(s.numel()), R(0)), term_scale(at(s.numel()), R(0)), count(at(s.numel())) {}

  void add(std::int64_t j, const R& t, const R& s) {
    g.v[at(j)] += t;
    abs_sum[at(j)] += mag(t);
    term_scale[at(j)] += s;
    ++count[at(j)];
  }

  BasicRefTensor<R> finish() {
    for (std::size_t j = 0; j < g.v.size(); ++j)
      g.scale[j] = count[j] > 1 ? real<R>(count[j]) * abs_sum[j] + term_scale[j] : term_scale[j];
    return std::move(g);
  }
};

}  // namespace

template <class R>
BasicRefTensor<R> binary_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const BinaryMath<R>& m = math_of<R>(call);
  BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  BasicRefTensor<R> z = zeros<R>(call.output_shape);
  if (plan.numel != z.numel()) fail(call, "broadcast size disagrees with the output shape");
  for (std::int64_t i = 0; i < plan.numel; ++i) {
    R a = in[0].v[at(plan.a_index(i))], b = in[1].v[at(plan.b_index(i))];
    z.v[at(i)] = m.f(a, b);
    z.scale[at(i)] = mag(z.v[at(i)]) + mag(a * m.fa(a, b)) + mag(b * m.fb(a, b));
  }
  return z;
}

template <class R>
std::vector<BasicRefTensor<R>> binary_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                          const BasicRefTensor<R>& dout) {
  const BinaryMath<R>& m = math_of<R>(call);
  BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  GradAccumulator<R> ga(in[0].shape), gb(in[1].shape);
  for (std::int64_t i = 0; i < plan.numel; ++i) {
    std::int64_t ia = plan.a_index(i), ib = plan.b_index(i);
    R a = in[0].v[at(ia)], b = in[1].v[at(ib)], dy = dout.v[at(i)];
    R ta = dy * m.fa(a, b), tb = dy * m.fb(a, b);
    R dab = mag(dy * m.fab(a, b));
    ga.add(ia, ta, mag(ta) + mag(a * dy * m.faa(a, b)) + mag(b) * dab);
    gb.add(ib, tb, mag(tb) + mag(a) * dab + mag(b * dy * m.fbb(a, b)));
  }
  return {ga.finish(), gb.finish()};
}

GP_REF_INSTANTIATE(binary)

}  // namespace gp::ref::detail
