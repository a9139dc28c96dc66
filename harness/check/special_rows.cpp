#include "harness/check/special_rows.hpp"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

#include "cases/special_values.hpp"

namespace gp {

namespace {

using Real = long double;
constexpr Real kRowNaN = std::numeric_limits<Real>::quiet_NaN();

// One row's facts: its NaN, its infinities of each sign, its length.
struct Row {
  std::vector<Real> x;
  bool nan = false;
  int plus = 0, minus = 0;
  int n() const { return static_cast<int>(x.size()); }
  // The max-subtracted formulas meet inf - inf: a +inf in the row, or nothing but -inf.
  bool indeterminate() const { return plus > 0 || minus == n(); }
};

std::vector<Row> rows_of(const Case& c) {
  const HostTensor& t = c.given->inputs.at(0);
  const std::int64_t n = t.shape().dims().back();
  std::vector<Row> rows(static_cast<std::size_t>(t.numel() / n));
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    Row& r = rows[static_cast<std::size_t>(i / n)];
    const Real v = t.get(i);
    r.x.push_back(v);
    r.nan = r.nan || std::isnan(v);
    r.plus += v == std::numeric_limits<Real>::infinity();
    r.minus += v == -std::numeric_limits<Real>::infinity();
  }
  return rows;
}

// The listed values, a zero of either sign; `or_finite`: any finite value too, where the value is a
// function of the row's finite entries or a limit a kernel reaches through exp and log (-log 8),
// which the error model judges.
SpecialSet set_of(DType t, std::initializer_list<Real> values, bool or_finite = false) {
  SpecialSet s;
  s.any_zero_sign = true;
  s.any_finite = or_finite;
  for (const Real v : values) s.add(t, v);
  return s;
}
SpecialSet finite() { return set_of(DType::f32, {}, true); }

// softmax of element j, which is also logsumexp's gradient: at a +inf NaN or its share of the
// limit, beside it NaN or 0; in a row of -inf NaN or 1/n; else 0 at a -inf.
SpecialSet softmax_at(DType t, const Row& r, int j) {
  const Real x = r.x[static_cast<std::size_t>(j)];
  if (r.nan) return set_of(t, {kRowNaN});
  if (r.plus > 0) return set_of(t, {kRowNaN, std::isinf(x) && x > 0 ? Real(1) / r.plus : Real(0)});
  if (r.minus == r.n()) return set_of(t, {kRowNaN, Real(1) / r.n()});
  return std::isinf(x) ? set_of(t, {Real(0)}) : finite();
}

// The row's value (logsumexp, variance), or nothing for softmax and log_softmax.
SpecialSet value_of(const Case& c, const Row& r) {
  constexpr Real inf = std::numeric_limits<Real>::infinity();
  if (r.nan) return set_of(c.dtype, {kRowNaN});
  if (c.decl.op == OpKind::logsumexp) {
    if (r.plus > 0) return set_of(c.dtype, {kRowNaN, inf});
    if (r.minus == r.n()) return set_of(c.dtype, {kRowNaN, -inf});
    return finite();
  }
  // variance: any infinity makes the mean infinite and its deviations inf - inf; the limit is
  // +inf, or 0 where every entry is the same infinity.
  if (r.plus + r.minus == 0) return finite();
  return set_of(c.dtype, {kRowNaN, r.plus == r.n() || r.minus == r.n() ? Real(0) : inf});
}

// A norm's element j (weights 1, bias 0), or its gradient's. Beside an infinity the mean (or the
// mean square) is infinite: layer_norm's deviations meet inf - inf, so its value and gradient are
// NaN or their finite limit; rms_norm divides by an infinite root, so a finite entry's value is 0
// (its limit too), an infinite one's inf / inf: NaN or the limit, and its gradient NaN or finite.
// A row of one infinity throughout normalises to 0 in the limit (its deviations vanish), except
// rms_norm's value, x / |x| = -1 for -inf.
SpecialSet norm_at(const Case& c, const Row& r, int j, bool gradient) {
  const Real x = r.x[static_cast<std::size_t>(j)];
  const DType t = c.dtype;
  if (r.plus + r.minus == 0) return finite();
  const bool one_infinity = r.plus == r.n() || r.minus == r.n();
  if (c.decl.op == OpKind::layer_norm || gradient)
    return one_infinity && !(c.decl.op == OpKind::rms_norm && gradient) ? set_of(t, {kRowNaN, 0})
                                                                        : set_of(t, {kRowNaN}, true);
  if (!std::isinf(x)) return set_of(t, {Real(0)});
  return one_infinity ? set_of(t, {kRowNaN, x > 0 ? Real(1) : Real(-1)}) : set_of(t, {kRowNaN}, true);
}

// Element j of the gradient (cotangent 1), or of softmax's and log_softmax's output.
SpecialSet element_of(const Case& c, const Row& r, int j, bool gradient) {
  constexpr Real inf = std::numeric_limits<Real>::infinity();
  const Real x = r.x[static_cast<std::size_t>(j)];
  const OpKind op = c.decl.op;
  const DType t = c.dtype;
  if (r.nan) return set_of(t, {kRowNaN});
  // gumbel_softmax at noise 0 is the softmax of x / tau: the same sets (the gradient's 1 / tau
  // keeps a NaN and a zero).
  const bool softmax = op == OpKind::softmax || op == OpKind::gumbel_softmax;
  if (op == OpKind::logsumexp || (softmax && !gradient)) return softmax_at(t, r, j);
  if (softmax) {  // y_j (1 - sum y): 0 in the limit and wherever y_j is 0
    if (r.indeterminate()) return set_of(t, {kRowNaN, 0});
    return std::isinf(x) ? set_of(t, {Real(0)}) : finite();
  }
  if (op == OpKind::log_softmax && !gradient) {  // x_j - log(sum e^x): at k +inf, the limit -log k
    if (r.plus > 0 && x == inf) return r.plus == 1 ? set_of(t, {kRowNaN, 0}) : set_of(t, {kRowNaN}, true);
    if (r.plus > 0) return set_of(t, {kRowNaN, -inf});
    if (r.minus == r.n()) return set_of(t, {kRowNaN}, true);
    return std::isinf(x) ? set_of(t, {-inf}) : finite();
  }
  if (op == OpKind::log_softmax) {  // 1 - n softmax_j: exactly 1 where softmax_j is 0
    if (r.plus > 0) return set_of(t, {kRowNaN, x == inf ? 1 - Real(r.n()) / r.plus : Real(1)});
    if (r.minus == r.n()) return set_of(t, {kRowNaN, 0});
    return std::isinf(x) ? set_of(t, {Real(1)}) : finite();
  }
  if (op == OpKind::layer_norm || op == OpKind::rms_norm) return norm_at(c, r, j, gradient);
  // variance: 2 (x_j - mean) / (n - correction), whose sign in the limit is the infinity's where
  // only one sign of infinity is in the row; with both it has no limit.
  if (r.plus + r.minus == 0) return finite();
  if (r.plus == r.n() || r.minus == r.n()) return set_of(t, {kRowNaN, 0});
  if (r.plus > 0 && r.minus > 0) return set_of(t, {kRowNaN});
  const Real sign = r.plus > 0 ? 1 : -1;
  return set_of(t, {kRowNaN, std::isinf(x) ? sign * inf : -sign * inf});
}

// sum, mean and max. A sum of the rows' values is the same in any order (a NaN or both infinities
// give NaN, one infinity itself, the finite ones are small integers), whatever the zero's sign a
// kernel's accumulator starts from; mean's divisor 8 is exact. max: NaN or the largest other value
// where a row has a NaN; its gradient, where the maximum ties or a NaN is in the row, any of 0,
// 1/k (k maxima) and the whole cotangent.
void add_linear_row(const Case& c, const Row& r, SpecialExpectations& e) {
  Real sum = 0, top = -std::numeric_limits<Real>::infinity();
  for (const Real v : r.x) {
    sum += v;
    if (!std::isnan(v)) top = std::max(top, v);
  }
  int ties = 0;
  for (const Real v : r.x) ties += v == top;
  SpecialSet f;
  f.any_zero_sign = true;
  const Real value = c.decl.op == OpKind::sum ? sum : c.decl.op == OpKind::mean ? sum / Real(r.n()) : top;
  f.add(c.dtype, r.nan ? kRowNaN : value);
  if (r.nan && c.decl.op == OpKind::max) f.add(c.dtype, top);
  e.forward.push_back(f);
  for (const Real v : r.x) {
    SpecialSet d;
    d.any_zero_sign = true;
    if (c.decl.op != OpKind::max) {
      d.add(c.dtype, c.decl.op == OpKind::sum ? Real(1) : Real(1) / Real(r.n()));
    } else if (r.nan || (ties > 1 && v == top)) {
      if (r.nan) d.values.push_back(std::numeric_limits<double>::quiet_NaN());
      for (const Real share : {Real(0), Real(1) / Real(ties), Real(1)}) d.add(c.dtype, share);
    } else {
      d.add(c.dtype, v == top ? 1 : 0);
    }
    e.gradients[0].push_back(d);
  }
}

}  // namespace

bool is_row_case(const Case& c) { return along_special_rows(c.decl.op); }

// A norm's weight gradient sums g times the normalised row over the rows (NaN where a row is NaN,
// NaN or finite where one has an infinity); layer_norm's bias gradient sums the cotangent: 8.
void add_parameter_gradients(const Case& c, const std::vector<Row>& rows, SpecialExpectations& e) {
  bool nan = false, infinite = false;
  for (const Row& r : rows) {
    nan = nan || r.nan;
    infinite = infinite || r.plus + r.minus > 0;
  }
  const SpecialSet weight = nan ? set_of(c.dtype, {kRowNaN}) : infinite ? set_of(c.dtype, {kRowNaN}, true) : finite();
  const auto n = static_cast<std::size_t>(rows.front().n());
  e.gradients.push_back(std::vector<SpecialSet>(n, weight));
  if (c.decl.op == OpKind::layer_norm)
    e.gradients.push_back(std::vector<SpecialSet>(n, set_of(c.dtype, {Real(rows.size())})));
}

SpecialExpectations row_expectations(const Case& c) {
  SpecialExpectations e;
  e.gradients.resize(1);
  const bool linear = c.decl.op == OpKind::sum || c.decl.op == OpKind::mean || c.decl.op == OpKind::max;
  const bool reduces = op_family(c.decl.op) == OpFamily::reduction;
  for (const Row& r : rows_of(c)) {
    if (linear) {
      add_linear_row(c, r, e);
      continue;
    }
    if (reduces) e.forward.push_back(value_of(c, r));
    for (int j = 0; j < r.n(); ++j) {
      if (!reduces) e.forward.push_back(element_of(c, r, j, false));
      e.gradients[0].push_back(element_of(c, r, j, true));
    }
  }
  if (c.decl.op == OpKind::layer_norm || c.decl.op == OpKind::rms_norm) add_parameter_gradients(c, rows_of(c), e);
  return e;
}

}  // namespace gp
