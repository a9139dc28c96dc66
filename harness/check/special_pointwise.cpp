#include "harness/check/special_pointwise.hpp"

#include <cmath>
#include <limits>

#include "cases/special_values.hpp"
#include "reference/binary_math.hpp"
#include "reference/reference.hpp"

namespace gp {

namespace {

using Real = ref::Real;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One element's set: the contract's value v and the other forms' values `also` (above).
SpecialSet element_set(DType t, bool nan_operand, std::initializer_list<Real> values) {
  SpecialSet s;
  s.any_zero_sign = true;
  if (nan_operand) s.values.push_back(kNaN);
  for (const Real v : values) s.add_exact_or_finite(t, v);
  return s;
}

// Whether the operands that element i of a pointwise op's gradient reads hold a NaN.
bool nan_at(const std::vector<HostTensor>& in, std::int64_t i) {
  for (const HostTensor& t : in)
    if (std::isnan(t.get(i))) return true;
  return false;
}

bool any_nan(const std::vector<HostTensor>& in) {
  for (const HostTensor& t : in)
    for (std::int64_t i = 0; i < t.numel(); ++i)
      if (std::isnan(t.get(i))) return true;
  return false;
}

// pow: every form of the value and partials at each pair, with PyTorch's masked zeros.
SpecialExpectations pow_sets(const Case& c) {
  const HostTensor &a = c.given->inputs.at(0), &b = c.given->inputs.at(1);
  SpecialExpectations e;
  e.gradients.resize(2);
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const Real x = a.get(i), y = b.get(i);
    const ref::BinaryPartials p = ref::binary_partials(c.decl.op, x, y);
    const bool nan = std::isnan(x) || std::isnan(y);
    e.forward.push_back(element_set(c.dtype, nan, {p.f}));
    SpecialSet da = element_set(c.dtype, nan, {p.fa, p.fa_of_z});
    if (y == 0) da.add(c.dtype, 0);
    // A pole at a zero base: which infinity is the formulation's reading of -0 (the unary ops' rule).
    if (x == 0 && std::isinf(p.fa)) da.add(c.dtype, -p.fa);
    SpecialSet db = element_set(c.dtype, nan, {p.fb, p.fb_of_z});
    if (x == 0 && y >= 0) db.add(c.dtype, 0);
    e.gradients[0].push_back(da);
    e.gradients[1].push_back(db);
  }
  return e;
}

// bspline_basis and the losses: the contract's value and gradients, each element reading the
// operands at its position (a basis row its x; a loss's value every pair).
SpecialExpectations contract_sets(const Case& c) {
  const std::vector<HostTensor>& given = c.given->inputs;
  std::vector<ref::RefTensor> in;
  in.reserve(given.size());
  for (const HostTensor& t : given) in.push_back(ref::RefTensor::from_host(t));
  const ref::RefTensor z = ref::forward(c.call, in);
  const std::vector<ref::RefTensor> g = ref::vjp(c.call, in, z, ref::RefTensor::from_host(*c.given->cotangent));
  SpecialExpectations e;
  const std::size_t per_point = z.v.size() / static_cast<std::size_t>(given.at(0).numel());
  for (std::size_t i = 0; i < z.v.size(); ++i) {
    const bool nan = z.v.size() == 1 ? any_nan(given) : nan_at(given, static_cast<std::int64_t>(i / per_point));
    e.forward.push_back(element_set(c.dtype, nan, {z.v[i]}));
  }
  for (std::size_t k = 0; k < g.size(); ++k) {
    e.gradients.emplace_back();
    for (std::size_t i = 0; i < g[k].v.size(); ++i)
      e.gradients.back().push_back(element_set(c.dtype, nan_at(given, static_cast<std::int64_t>(i)), {g[k].v[i]}));
  }
  return e;
}

}  // namespace

bool is_pointwise_case(const Case& c) { return special_pointwise(c.decl.op); }

SpecialExpectations pointwise_expectations(const Case& c) {
  return c.decl.op == OpKind::pow ? pow_sets(c) : contract_sets(c);
}

}  // namespace gp
