// Unary elementwise ops, driven by the table in unary_math.cpp.
//   forward  y = f(x):       scale = |y| + |x f'(x)| + forward stage
//   backward g = dy f'(x):   scale = |g| + |dy x f''(x)| + |dy| * backward stage
// f'' is analytic (checked against central differences in the unit test).
#include "reference/internal.hpp"
#include "reference/unary_math.hpp"

namespace gp::ref::detail {

namespace {

template <class R>
const BasicUnaryMath<R>& math_of(const OpCall& call) {
  const BasicUnaryMath<R>* m = basic_unary_math<R>(call.kind);
  if (!m) fail(call, "is not in the unary table");
  return *m;
}

}  // namespace

template <class R>
BasicRefTensor<R> unary_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const BasicUnaryMath<R>& m = math_of<R>(call);
  const BasicRefTensor<R>& x = in[0];
  BasicRefTensor<R> y = zeros<R>(call.output_shape);
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    R xi = x.v[i];
    y.v[i] = m.f(xi, call.attrs);
    y.scale[i] = mag(y.v[i]) + mag(xi * m.d1(xi, call.attrs)) + m.fwd_stage(xi, call.attrs);
  }
  return y;
}

template <class R>
std::vector<BasicRefTensor<R>> unary_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                         const BasicRefTensor<R>& dout) {
  const BasicUnaryMath<R>& m = math_of<R>(call);
  const BasicRefTensor<R>& x = in[0];
  BasicRefTensor<R> g = zeros<R>(x.shape);
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    R xi = x.v[i], dy = dout.v[i];
    g.v[i] = dy * m.d1(xi, call.attrs);
    g.scale[i] = mag(g.v[i]) + mag(dy * xi * m.d2(xi, call.attrs)) + mag(dy) * m.bwd_stage(xi, call.attrs);
  }
  return {std::move(g)};
}

GP_REF_INSTANTIATE(unary)

}  // namespace gp::ref::detail
