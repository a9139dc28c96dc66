#include "harness/check/kink_slopes.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace gp {

namespace {

std::vector<std::int64_t> elements_on_kinks(const Case& c, const ref::RefTensor& x) {
  std::vector<std::int64_t> on;
  const auto kinks = op_kinks(c.decl.op);
  for (std::int64_t i = 0; i < x.numel(); ++i)
    for (double kink : kinks)
      if (x.v[static_cast<std::size_t>(i)] == kink) on.push_back(i);
  return on;
}

// How far `got` is from `value` in units of its bound (the distance itself against a zero bound).
double distance(const Tolerance& tol, const ref::ErrorBound& err, double value, double got) {
  const double miss = std::fabs(got - value);
  if (miss == 0) return 0;
  const double bound = tol.bound(err, value);
  return bound > 0 ? miss / bound : std::numeric_limits<double>::infinity();
}

// The gradients of input 0 with every element in `on` moved one long-double spacing to the left
// of its kink, and to the right: the two one-sided derivatives there, bounded like any.
std::vector<ref::RefTensor> one_sided_gradients(const ReferenceData& data, const std::vector<std::int64_t>& on,
                                                const MathProfile* math, bool flush) {
  std::vector<ref::RefTensor> sides;
  for (long double towards :
       {-std::numeric_limits<long double>::infinity(), std::numeric_limits<long double>::infinity()}) {
    std::vector<ref::RefTensor> moved = data.ref_inputs;
    for (std::int64_t i : on) {
      auto& x = moved[0].v[static_cast<std::size_t>(i)];
      x = std::nextafter(x, towards);
    }
    sides.push_back(std::move(ref::bounded_gradients(data.call, moved, data.ref_cotangent, math, flush)[0]));
  }
  return sides;
}

}  // namespace

std::optional<KinkJudgement> judge_at_kinks(const KinkContext& at, const ref::RefTensor& contract,
                                            const HostTensor& got, int k) {
  const OpKind op = at.c.decl.op;
  if (k != 0 || op_family(op) != OpFamily::unary || op_kinks(op).empty()) return std::nullopt;
  const std::vector<std::int64_t> on = elements_on_kinks(at.c, at.data.ref_inputs[0]);
  if (on.empty() || contract.err.size() != contract.v.size()) return std::nullopt;
  const std::vector<ref::RefTensor> sides = one_sided_gradients(at.data, on, at.math, at.flush);
  const Tolerance& tol = at.tol;
  KinkJudgement j{contract, static_cast<std::int64_t>(on.size()), 0};
  for (std::int64_t i : on) {
    const auto e = static_cast<std::size_t>(i);
    const double g = got.get(i);
    double best = distance(tol, contract.err[e], static_cast<double>(contract.v[e]), g);
    for (const ref::RefTensor& side : sides) {
      const double d = distance(tol, side.err[e], static_cast<double>(side.v[e]), g);
      if (d < best && side.v[e] != contract.v[e]) {
        best = d;
        j.expected.v[e] = side.v[e];
        j.expected.err[e] = side.err[e];
      }
    }
    if (j.expected.v[e] != contract.v[e]) ++j.other_side;
  }
  return j;
}

}  // namespace gp
