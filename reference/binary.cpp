// Binary elementwise ops with NumPy broadcasting (core broadcast_plan), driven by one table of
// z = f(a, b), its partials, and the partials written with the output z for the kernels that
// read it (pow: b z / a and z log a; div: -z / b). The gradient of a broadcast input sums the
// terms dy df/da over the outputs that read it (Sum: an accumulation of n terms).
// maximum/minimum: the gradient goes to the selected input; on an exact tie (outside the domain)
// each input receives half, the convention PyTorch uses.
#include <array>
#include <cmath>

#include "core/error.hpp"
#include "reference/binary_math.hpp"
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

using std::log;
using std::pow;

template <class R>
struct BinaryMath {
  using Fn = R (*)(R a, R b);
  using FnY = R (*)(R a, R b, R z);
  OpKind kind;
  Fn f, fa, fb;
  FnY fa_of_z, fb_of_z;
};

template <class R>
R pick(bool first, bool tie) {
  return tie ? R(0.5) : R(first ? 1 : 0);
}

// name, f, df/da, df/db, df/da and df/db from (a, b, z). Parenthesise arguments with commas.
// div's df/db is -(a / b) / b, not -a / (b b): b b underflows for |b| below 2^-63 in f32 where
// the quotient of quotients does not (hunt: the kernels' infinity at a subnormal divisor).
#define GP_REF_BINARY_TABLE(X)                                                                        \
  X(add, a + b, R(1), R(1), R(1), R(1))                                                               \
  X(sub, a - b, R(1), R(-1), R(1), R(-1))                                                             \
  X(mul, a* b, b, a, b, a)                                                                            \
  X(div, a / b, 1 / b, -(a / b) / b, 1 / b, -(z / b))                                                 \
  X(pow, (pow(a, b)), (b * pow(a, b - 1)), (pow(a, b) * log(a)), (b * z / a), (z * log(a)))           \
  X(maximum, (a > b ? a : b), pick<R>(a > b, a == b), pick<R>(b > a, a == b), pick<R>(a > b, a == b), \
    pick<R>(b > a, a == b))                                                                           \
  X(minimum, (a < b ? a : b), pick<R>(a < b, a == b), pick<R>(b < a, a == b), pick<R>(a < b, a == b), \
    pick<R>(b < a, a == b))

#define GP_REF_BINARY_ENTRY(name, F, FA, FB, FAZ, FBZ)                   \
  BinaryMath<R>{OpKind::name,                                            \
                [](R a, R b) -> R { return F; },                         \
                [](R a, R b) -> R { return FA; },                        \
                [](R a, R b) -> R { return FB; },                        \
                [](R a, R b, [[maybe_unused]] R z) -> R { return FAZ; }, \
                [](R a, R b, [[maybe_unused]] R z) -> R { return FBZ; }},

template <class R>
const auto& table() {
  static const std::array kTable = {GP_REF_BINARY_TABLE(GP_REF_BINARY_ENTRY)};
  return kTable;
}

#undef GP_REF_BINARY_ENTRY
#undef GP_REF_BINARY_TABLE

template <class R>
const BinaryMath<R>& binary_math_of(const OpCall& call) {
  for (const auto& e : table<R>())
    if (e.kind == call.kind) return e;
  fail(call, "is not in the binary table");
}

}  // namespace

template <class R>
BasicRefTensor<R> binary_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const BinaryMath<R>& m = binary_math_of<R>(call);
  BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  BasicRefTensor<R> z = zeros<R>(call.output_shape);
  if (plan.numel != z.numel()) fail(call, "broadcast size disagrees with the output shape");
  for (std::int64_t i = 0; i < plan.numel; ++i)
    z.v[at(i)] = m.f(in[0].v[at(plan.a_index(i))], in[1].v[at(plan.b_index(i))]);
  return z;
}

template <class R>
std::vector<BasicRefTensor<R>> binary_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                          const BasicRefTensor<R>& dout) {
  const BinaryMath<R>& m = binary_math_of<R>(call);
  BroadcastPlan plan = broadcast_plan(call.input_shapes[0], call.input_shapes[1]);
  std::vector<Sum<R>> ga(at(in[0].numel())), gb(at(in[1].numel()));
  for (std::int64_t i = 0; i < plan.numel; ++i) {
    std::int64_t ia = plan.a_index(i), ib = plan.b_index(i);
    R a = in[0].v[at(ia)], b = in[1].v[at(ib)], dy = dout.v[at(i)];
    R fa = m.fa(a, b), fb = m.fb(a, b);
    if constexpr (kTracked<R>)
      if (backward_reads_output()) {
        const R z = stored(m.f(a, b));
        fa = either_form(fa, m.fa_of_z(a, b, z));
        fb = either_form(fb, m.fb_of_z(a, b, z));
      }
    ga[at(ia)].add_product(dy, fa);
    gb[at(ib)].add_product(dy, fb);
  }
  auto collect = [](const Shape& shape, const std::vector<Sum<R>>& sums) {
    BasicRefTensor<R> g = zeros<R>(shape);
    for (std::size_t j = 0; j < sums.size(); ++j) g.v[j] = sums[j].result();
    return g;
  };
  return {collect(in[0].shape, ga), collect(in[1].shape, gb)};
}

GP_REF_INSTANTIATE(binary)

}  // namespace gp::ref::detail

namespace gp::ref {

BinaryPartials binary_partials(OpKind op, Real a, Real b) {
  for (const auto& m : detail::table<Real>()) {
    if (m.kind != op) continue;
    const Real z = m.f(a, b);
    return {z, m.fa(a, b), m.fb(a, b), m.fa_of_z(a, b, z), m.fb_of_z(a, b, z)};
  }
  throw Error(std::string(op_name(op)) + " is not a binary op");
}

}  // namespace gp::ref
