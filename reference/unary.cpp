// Unary elementwise ops, driven by the table in unary_math.cpp.
//   forward  y = f(x)
//   backward g = dy f'(x); a kernel may instead compute f' from its stored y (the table's y form),
//            and with Tracked the bound covers either.
#include "reference/internal.hpp"
#include "reference/unary_math.hpp"

namespace gp::ref::detail {

namespace {

template <class R>
const BasicUnaryMath<R>& unary_math_of(const OpCall& call) {
  const BasicUnaryMath<R>* m = basic_unary_math<R>(call.kind);
  if (!m) fail(call, "is not in the unary table");
  return *m;
}

}  // namespace

template <class R>
BasicRefTensor<R> unary_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const BasicUnaryMath<R>& m = unary_math_of<R>(call);
  const BasicRefTensor<R>& x = in[0];
  BasicRefTensor<R> y = zeros<R>(call.output_shape);
  for (std::size_t i = 0; i < x.v.size(); ++i) y.v[i] = m.f(x.v[i], call.attrs);
  return y;
}

template <class R>
std::vector<BasicRefTensor<R>> unary_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                         const BasicRefTensor<R>& dout) {
  const BasicUnaryMath<R>& m = unary_math_of<R>(call);
  const BasicRefTensor<R>& x = in[0];
  BasicRefTensor<R> g = zeros<R>(x.shape);
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    const R xi = x.v[i], dy = dout.v[i];
    R slope = m.d1(xi, call.attrs);
    if constexpr (kTracked<R>)
      if (backward_reads_output()) slope = either_form(slope, m.d1_of_y(xi, stored(m.f(xi, call.attrs)), call.attrs));
    g.v[i] = dy * slope;
  }
  return {std::move(g)};
}

GP_REF_INSTANTIATE(unary)

}  // namespace gp::ref::detail
