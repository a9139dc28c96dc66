#include "harness/check/special_values.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cases/special_values.hpp"
#include "core/error.hpp"
#include "harness/check/special_composite.hpp"
#include "harness/check/special_pointwise.hpp"
#include "harness/check/special_products.hpp"
#include "harness/check/special_rows.hpp"
#include "harness/check/text.hpp"
#include "reference/reference.hpp"
#include "reference/unary_math.hpp"

namespace gp {

namespace {

using Real = ref::Real;

// The ops that are IEEE 754 operations or C Annex F functions, whose results at a signed zero
// those standards fix; the catalog's other unary ops are compositions, where they do not, and
// pow_scalar, which libraries take apart (PyTorch's x^0.5 is sqrt x, whose sqrt(-0) = -0 where
// Annex F's pow(-0, 0.5) = +0).
bool zero_sign_defined(OpKind k) {
  switch (k) {
    case OpKind::neg:
    case OpKind::square:
    case OpKind::reciprocal:
    case OpKind::abs:
    case OpKind::exp:
    case OpKind::expm1:
    case OpKind::log:
    case OpKind::log1p:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
      return true;
    default:
      return false;
  }
}

// The function at an infinity; where its formula meets an indeterminate form there (NaN: silu's
// -inf * 0), also its limit, the formula at two huge arguments of that sign when they agree in
// the dtype (sin has none); and NaN where the function is NaN next to that infinity (C Annex F's
// pow(-inf, 0.5) = +inf, where pow(-x, 0.5) is NaN).
template <class Fn>
void add_at_infinity(SpecialSet& s, const Fn& fn, Real x, DType t) {
  const Real v = fn(x);
  s.add(t, v);
  // Far past any argument the catalog's functions saturate at, and not so far that a power of it
  // in their formulas (gelu's x^3) leaves long double's range.
  const Real huge = std::copysign(0x1p1000L, x);
  const Real a = fn(huge), b = fn(huge * 0x1p-100L);
  const bool limit = std::isnan(v) && round_to(t, static_cast<double>(a)) == round_to(t, static_cast<double>(b));
  if (std::isnan(a) || limit) s.add(t, a);
}

// The values of the op's constant pieces, where it is defined piecewise (it has kinks): at NaN a
// comparison is false, and which piece it selects depends on the comparison a kernel writes
// (PyTorch's relu backward takes x <= 0 ? 0 : g, which gives g there).
template <class Fn>
void add_constant_pieces(SpecialSet& s, const Fn& fn, OpKind op, DType t) {
  const auto kinks = op_kinks(op);
  if (kinks.empty()) return;
  std::vector<Real> edges = {-std::numeric_limits<Real>::max()};
  for (const double k : kinks) edges.push_back(k);
  edges.push_back(std::numeric_limits<Real>::max());
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    const Real lo = edges[i], hi = edges[i + 1];
    const Real a = i == 0 ? hi - 2 : lo + (hi - lo) / 3, b = i + 2 == edges.size() ? lo + 2 : hi - (hi - lo) / 3;
    if (fn(a) == fn(b)) s.add(t, fn(a));
  }
}

SpecialSet set_at(const Case& c, std::size_t i, bool backward) {
  const ref::UnaryMath* m = ref::unary_math(c.decl.op);
  if (!m) throw Error("special values: " + c.id + " is not a unary op");
  const OpAttrs& a = c.call.attrs;
  auto fn = [&](Real x) { return backward ? m->d1(x, a) : m->f(x, a); };
  const Real x = kSpecialInputs[i];
  SpecialSet s;
  s.any_zero_sign = backward || !zero_sign_defined(c.decl.op);
  if (std::isnan(x)) {
    s.values.push_back(std::numeric_limits<double>::quiet_NaN());
    s.add(c.dtype, fn(x));
    add_constant_pieces(s, fn, c.decl.op, c.dtype);
    return s;
  }
  if (std::isinf(x)) {
    add_at_infinity(s, fn, x, c.dtype);
    return s;
  }
  // A zero: the value there; a backward, the derivative at either zero, and either one-sided one
  // where 0 is a kink of the op.
  std::vector<Real> at_zero = {fn(x)};
  if (backward) {
    at_zero = {fn(Real(0)), fn(-Real(0))};
    const auto kinks = op_kinks(c.decl.op);
    if (std::find(kinks.begin(), kinks.end(), 0.0) != kinks.end())
      for (const Real side : {std::numeric_limits<Real>::denorm_min(), -std::numeric_limits<Real>::denorm_min()})
        at_zero.push_back(fn(side));
  }
  for (const Real v : at_zero) {
    if (std::isnan(v) && !std::isnan(at_zero.front())) continue;
    if (std::isinf(v) && s.any_zero_sign) {
      // A pole of a backward (or of a composition): the sign of its infinity at a signed zero is
      // the formulation's reading of -0 (rsqrt's -1 / (2 x sqrt x) gives -inf at -0, PyTorch's
      // -rsqrt(x)^3 / 2 gives +inf). IEEE 754 fixes 1 / -0 = -inf.
      s.add(c.dtype, v);
      s.add(c.dtype, -v);
    } else if (!backward && std::isfinite(v) && static_cast<Real>(round_to(c.dtype, static_cast<double>(v))) != v) {
      s.any_finite = true;  // ln 2 = softplus(0): a library function's rounding, the error model's
    } else {
      s.add(c.dtype, v);
    }
  }
  return s;
}

bool selects(OpKind k) { return k == OpKind::maximum || k == OpKind::minimum; }

// The case's inputs, output and gradients by the contract, in long double.
struct ReferenceValues {
  std::vector<ref::RefTensor> in;
  ref::RefTensor z;
  std::vector<ref::RefTensor> g;
};
ReferenceValues reference_values(const Case& c) {
  ReferenceValues r;
  for (const HostTensor& t : c.given->inputs) r.in.push_back(ref::RefTensor::from_host(t));
  r.z = ref::forward(c.call, r.in);
  r.g = ref::vjp(c.call, r.in, r.z, ref::RefTensor::from_host(*c.given->cotangent));
  return r;
}

// A layout op moves values: each output element the input element it moves, its zero's sign and
// its NaN kept; each gradient the cotangent moved.
SpecialExpectations layout_expectations(const Case& c) {
  const ReferenceValues r = reference_values(c);
  SpecialExpectations e;
  for (const Real v : r.z.v) {
    SpecialSet s;
    s.add(c.dtype, v);
    e.forward.push_back(s);
  }
  for (const ref::RefTensor& g : r.g) {
    e.gradients.emplace_back();
    for (const Real v : g.v) {
      SpecialSet s;
      s.any_zero_sign = true;
      s.add(c.dtype, v);
      e.gradients.back().push_back(s);
    }
  }
  return e;
}

// The contract's values at every pair of operands, in long double (IEEE 754 arithmetic there).
SpecialExpectations binary_expectations(const Case& c) {
  const ReferenceValues r = reference_values(c);
  const std::vector<ref::RefTensor>& in = r.in;
  const ref::RefTensor& z = r.z;
  const std::vector<ref::RefTensor>& g = r.g;
  const bool ieee =
      c.decl.op == OpKind::add || c.decl.op == OpKind::sub || c.decl.op == OpKind::mul || c.decl.op == OpKind::div;
  SpecialExpectations e;
  e.gradients.resize(g.size());
  for (std::size_t i = 0; i < z.v.size(); ++i) {
    const Real a = in[0].v[i], b = in[1].v[i];
    const bool nan_operand = std::isnan(a) || std::isnan(b);
    SpecialSet f;
    f.any_zero_sign = !ieee;
    if (nan_operand) f.values.push_back(std::numeric_limits<double>::quiet_NaN());
    f.add(c.dtype, z.v[i]);
    if (selects(c.decl.op) && nan_operand)  // either operand passed over, as C's fmax and fmin do
      for (const Real v : {a, b}) f.add(c.dtype, v);
    e.forward.push_back(f);
    for (std::size_t k = 0; k < g.size(); ++k) {
      SpecialSet d;
      d.any_zero_sign = true;
      if (nan_operand) d.values.push_back(std::numeric_limits<double>::quiet_NaN());
      if (selects(c.decl.op) && (nan_operand || a == b))
        for (const double share : {0.0, 0.5, 1.0}) d.values.push_back(share);
      d.add(c.dtype, g[k].v[i]);
      e.gradients[k].push_back(d);
    }
  }
  return e;
}

std::string value_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (v == 0) return std::signbit(v) ? "-0" : "+0";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  return format_g(v, 9);
}

}  // namespace

// Beyond the range, the infinity.
void SpecialSet::add(DType t, long double v) {
  if (std::isnan(v) || std::isinf(v)) {
    values.push_back(static_cast<double>(v));
    return;
  }
  const double r = round_to(t, static_cast<double>(v));
  values.push_back(r);
  if (std::isfinite(r) && static_cast<long double>(r) != v) {
    const double other = r + (static_cast<long double>(r) < v ? 1 : -1) * ulp_of(t, r);
    values.push_back(round_to(t, other));
  }
}

void SpecialSet::add_exact_or_finite(DType t, long double v) {
  const double r = std::isnan(v) ? static_cast<double>(v) : round_to(t, static_cast<double>(v));
  if (std::isfinite(r) && r != 0) {
    any_finite = true;
  } else {
    add(t, v);
  }
}

bool SpecialSet::accepts(double got) const {
  if (any_finite && std::isfinite(got)) return true;
  for (const double v : values) {
    if (std::isnan(v) ? std::isnan(got) : got == v && (any_zero_sign || std::signbit(got) == std::signbit(v)))
      return true;
  }
  return false;
}

std::string SpecialSet::describe() const {
  std::vector<std::string> names;
  for (const double v : values) {
    std::string n = value_text(v);
    if (v == 0 && any_zero_sign) n = "0";
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  if (any_finite) names.push_back("finite");
  std::string out = "{";
  for (std::size_t k = 0; k < names.size(); ++k) out += (k ? ", " : "") + names[k];
  return out + "}";
}

SpecialExpectations special_expectations(const Case& c) {
  if (is_pointwise_case(c)) return pointwise_expectations(c);
  if (is_composite_case(c)) return composite_expectations(c);
  if (op_family(c.decl.op) == OpFamily::binary) return binary_expectations(c);
  if (op_family(c.decl.op) == OpFamily::layout) return layout_expectations(c);
  if (is_row_case(c)) return row_expectations(c);
  if (is_product_case(c)) return product_expectations(c);
  SpecialExpectations e;
  e.gradients.resize(1);
  for (std::size_t i = 0; i < kSpecialInputs.size(); ++i) {
    e.forward.push_back(set_at(c, i, false));
    e.gradients[0].push_back(set_at(c, i, true));
  }
  return e;
}

}  // namespace gp
