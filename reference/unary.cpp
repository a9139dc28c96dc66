// Unary elementwise ops, driven by the table in unary_math.cpp.
//   forward  y = f(x):       scale = |y| + |x f'(x)| + forward stage
//   backward g = dy f'(x):   scale = |g| + |dy x f''(x)| + |dy| * backward stage
// f'' is analytic (checked against central differences in the unit test).
#include "reference/internal.hpp"
#include "reference/unary_math.hpp"

namespace gp::ref::detail {

namespace {

const UnaryMath& math_of(const OpCall& call) {
  const UnaryMath* m = unary_math(call.kind);
  if (!m) fail(call, "is not in the unary table");
  return *m;
}

}  // namespace

RefTensor unary_forward(const OpCall& call, const std::vector<RefTensor>& in) {
  const UnaryMath& m = math_of(call);
  const RefTensor& x = in[0];
  RefTensor y = zeros(call.output_shape);
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    Real xi = x.v[i];
    y.v[i] = m.f(xi, call.attrs);
    y.scale[i] = mag(y.v[i]) + mag(xi * m.d1(xi, call.attrs)) + m.fwd_stage(xi, call.attrs);
  }
  return y;
}

std::vector<RefTensor> unary_vjp(const OpCall& call, const std::vector<RefTensor>& in, const RefTensor& dout) {
  const UnaryMath& m = math_of(call);
  const RefTensor& x = in[0];
  RefTensor g = zeros(x.shape);
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    Real xi = x.v[i], dy = dout.v[i];
    g.v[i] = dy * m.d1(xi, call.attrs);
    g.scale[i] = mag(g.v[i]) + mag(dy * xi * m.d2(xi, call.attrs)) + mag(dy) * m.bwd_stage(xi, call.attrs);
  }
  return {std::move(g)};
}

}  // namespace gp::ref::detail
