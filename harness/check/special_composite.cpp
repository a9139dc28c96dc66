#include "harness/check/special_composite.hpp"

#include <array>
#include <cmath>
#include <limits>

#include "cases/special_values.hpp"
#include "reference/reference.hpp"

namespace gp {

namespace {

using Real = ref::Real;

// The contract's output and its differentiable inputs' gradients, in that order.
std::vector<std::vector<Real>> contract_at(const Case& c, const std::vector<ref::RefTensor>& in) {
  const ref::RefTensor z = ref::forward(c.call, in);
  std::vector<std::vector<Real>> out = {z.v};
  if (op_is_forward_only(c.decl.op)) return out;
  const std::vector<ref::RefTensor> g = ref::vjp(c.call, in, z, ref::RefTensor::from_host(*c.given->cotangent));
  for (std::size_t k = 0; k < g.size(); ++k)
    if (input_is_differentiable(c.decl.op, static_cast<int>(k))) out.push_back(g[k].v);
  return out;
}

// The inputs with +inf as `positive` and -inf as -`negative`.
std::vector<ref::RefTensor> finite_stand_ins(std::vector<ref::RefTensor> in, Real positive, Real negative) {
  for (ref::RefTensor& t : in)
    for (Real& v : t.v)
      if (std::isinf(v)) v = v > 0 ? positive : -negative;
  return in;
}

bool any_infinite(const HostTensor& t, std::int64_t first, std::int64_t count, std::int64_t stride = 1) {
  for (std::int64_t j = 0; j < count; ++j)
    if (std::isinf(t.get(first + j * stride))) return true;
  return false;
}

// tt_embedding: an output row reads its id's three core slices; a core-gradient element the slices
// of every id that uses its slice.
bool tt_reads_infinity(const Case& c, std::size_t tensor, std::int64_t i) {
  const std::vector<HostTensor>& in = c.given->inputs;
  const TtGeometry g = tt_geometry(c.call);
  auto slice_of = [&](std::size_t core, std::int64_t id) {
    const TtGeometry::Digits d = g.digits(id);
    return core == 1 ? d.i1 : core == 2 ? d.i2 : d.i3;
  };
  auto id_reads_infinity = [&](std::int64_t id) {
    for (std::size_t core = 1; core <= 3; ++core) {
      const std::int64_t size = in[core].numel() / in[core].shape()[0];
      if (any_infinite(in[core], slice_of(core, id) * size, size)) return true;
    }
    return false;
  };
  if (tensor == 0) return id_reads_infinity(static_cast<std::int64_t>(in[0].get(i / g.dim())));
  const std::int64_t slice = i / (in[tensor].numel() / in[tensor].shape()[0]);
  for (std::int64_t b = 0; b < g.batch; ++b) {
    const auto id = static_cast<std::int64_t>(in[0].get(b));
    if (slice_of(tensor, id) == slice && id_reads_infinity(id)) return true;
  }
  return false;
}

// Whether element i of the output (`tensor` 0) or of a gradient reads an infinite operand: a row
// of cross_entropy's logits (its loss all of them); log_matmul_exp's row of A and column of B (a
// gradient, every sum over both); the GRU cell's batch row (a weight's or bias's gradient, every
// row); tt_embedding's core slices (above); an optimizer's element of every input.
bool reads_infinity(const Case& c, std::size_t tensor, std::int64_t i) {
  const std::vector<HostTensor>& in = c.given->inputs;
  const auto n = static_cast<std::int64_t>(kSpecialRows.size());
  switch (c.decl.op) {
    case OpKind::cross_entropy:
      return tensor == 0 ? any_infinite(in[0], 0, n * n) : any_infinite(in[0], i / n * n, n);
    case OpKind::log_matmul_exp:
      if (tensor == 0) return any_infinite(in[0], i / n * n, n) || any_infinite(in[1], i % n, n, n);
      return any_infinite(in[0], 0, n * n) || any_infinite(in[1], 0, n * n);
    case OpKind::gru_cell:  // a batch row's x and h; a weight's or bias's gradient every row
      return tensor <= 2 ? std::isinf(in[0].get(i)) || std::isinf(in[1].get(i))
                         : any_infinite(in[0], 0, in[0].numel()) || any_infinite(in[1], 0, in[1].numel());
    case OpKind::tt_embedding:
      return tt_reads_infinity(c, tensor, i);
    default: {
      const std::int64_t e = i % in[0].numel();
      for (const HostTensor& t : in)
        if (std::isinf(t.get(e))) return true;
      return false;
    }
  }
}

SpecialSet limit_or_contract_set(DType t, Real v, const std::array<Real, 3>& stand_ins, bool beside_infinity) {
  SpecialSet s;
  s.any_zero_sign = true;
  // Beside an infinity a formulation may meet inf - inf (a row's maximum subtracted), inf * 0 or
  // inf / inf where the contract's does not.
  if (beside_infinity && !std::isnan(v)) s.values.push_back(std::numeric_limits<double>::quiet_NaN());
  if (std::isnan(v)) {
    s.values.push_back(std::numeric_limits<double>::quiet_NaN());
    const double limit = round_to(t, static_cast<double>(stand_ins[0]));
    bool agree = !std::isnan(limit);
    for (const Real w : stand_ins) agree = agree && round_to(t, static_cast<double>(w)) == limit;
    if (agree) s.add_exact_or_finite(t, stand_ins[0]);  // a finite nonzero limit the error model's too
  } else {
    s.add_exact_or_finite(t, v);
  }
  return s;
}

}  // namespace

bool is_composite_case(const Case& c) { return special_composite(c.decl.op); }

SpecialExpectations composite_expectations(const Case& c) {
  std::vector<ref::RefTensor> in;
  in.reserve(c.given->inputs.size());
  for (const HostTensor& t : c.given->inputs) in.push_back(ref::RefTensor::from_host(t));
  const std::vector<std::vector<Real>> contract = contract_at(c, in);
  // Beyond every finite value of the dtypes at either ratio (2^1100 > f64's largest), and not so far
  // that a square leaves long double's range (adamw's g^2).
  constexpr Real kHuge = 0x1p1200L, kRatio = 0x1p100L;
  const std::array<std::vector<std::vector<Real>>, 3> limits = {
      contract_at(c, finite_stand_ins(in, kHuge, kHuge)), contract_at(c, finite_stand_ins(in, kHuge, kHuge / kRatio)),
      contract_at(c, finite_stand_ins(in, kHuge / kRatio, kHuge))};
  SpecialExpectations e;
  for (std::size_t k = 0; k < contract.size(); ++k) {
    std::vector<SpecialSet>& sets = k == 0 ? e.forward : e.gradients.emplace_back();
    for (std::size_t i = 0; i < contract[k].size(); ++i)
      sets.push_back(limit_or_contract_set(c.dtype, contract[k][i], {limits[0][k][i], limits[1][k][i], limits[2][k][i]},
                                           reads_infinity(c, k, static_cast<std::int64_t>(i))));
  }
  return e;
}

}  // namespace gp
