#include "harness/hunt/moves.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/check/inputs.hpp"
#include "harness/check/numerical.hpp"

namespace gp {

namespace {

// Elements chosen for one move: 1 to 3, distinct where the tensor has that many.
std::vector<std::int64_t> pick_elements(std::int64_t numel, Rng& rng) {
  const std::int64_t count = std::min<std::int64_t>(numel, 1 + static_cast<std::int64_t>(rng.below(3)));
  std::vector<std::int64_t> out;
  while (static_cast<std::int64_t>(out.size()) < count) {
    const auto i = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(numel)));
    if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
  }
  return out;
}

double sign(Rng& rng) { return rng.below(2) == 0 ? -1.0 : 1.0; }

double moved(Move move, double x, const std::vector<double>& points, DType t, Rng& rng) {
  switch (move) {
    case Move::ulp_step:
      return x + sign(rng) * static_cast<double>(1 + rng.below(4)) * ulp_of(t, x);
    case Move::exponent_jump:
      return std::ldexp(x, static_cast<int>(sign(rng)) * static_cast<int>(1 + rng.below(8)));
    case Move::sign_flip:
      return -x;
    case Move::toward_point: {
      const double p = points[rng.below(points.size())];
      return p + std::ldexp(x - p, -static_cast<int>(1 + rng.below(20)));
    }
    case Move::onto_point: {
      // Exactly onto the point, or 2^0 .. 2^24 of its ULPs to either side.
      const double p = points[rng.below(points.size())];
      const std::uint64_t e = rng.below(26);
      return e == 25 ? p : p + sign(rng) * std::ldexp(ulp_of(t, p), static_cast<int>(e));
    }
  }
  return x;
}

}  // namespace

std::vector<double> points_of_interest(const Case& c, int k) {
  const DType t = c.call.input_dtypes.at(static_cast<std::size_t>(k));
  const Domain& d = c.decl.inputs.at(static_cast<std::size_t>(k)).domain;
  const double big = largest_finite(t), tiny = std::ldexp(1.0, min_normal_exponent(t));
  std::vector<double> p = {
      0,       1,        -1,   std::log(big), -std::log(big), std::log(tiny), std::sqrt(big), -std::sqrt(big),
      big / 2, -big / 2, d.lo, d.hi};
  if (k == 0)
    for (double kink : op_kinks(c.decl.op)) p.push_back(kink);
  for (double kink : d.kinks) p.push_back(kink);
  if (d.kind == Domain::Kind::half_integer_free)
    for (double h : {0.5, 1.5, 2.5}) p.insert(p.end(), {h, -h});
  for (double& x : p) x = round_to(t, x);
  return p;
}

std::vector<int> movable_inputs(const Case& c) {
  std::vector<int> out;
  for (std::size_t k = 0; k < c.decl.inputs.size(); ++k) {
    const Domain::Kind kind = c.decl.inputs[k].domain.kind;
    if (is_float(c.call.input_dtypes[k]) && kind != Domain::Kind::class_index && kind != Domain::Kind::constant)
      out.push_back(static_cast<int>(k));
  }
  return out;
}

std::vector<HostTensor> apply_move(const Case& c, const std::vector<HostTensor>& inputs, Move move, Rng& rng) {
  std::vector<HostTensor> out = inputs;
  const std::vector<int> movable = movable_inputs(c);
  if (movable.empty()) return out;
  const int k = movable[rng.below(movable.size())];
  HostTensor& t = out[static_cast<std::size_t>(k)];
  const std::vector<double> points = points_of_interest(c, k);
  for (std::int64_t i : pick_elements(t.numel(), rng)) {
    const double x = round_to(t.dtype(), moved(move, t.get(i), points, t.dtype(), rng));
    if (std::isfinite(x)) t.set(i, x);
  }
  keep_viewable(c, out);  // a moved element of an expanded view moves the elements it shares
  return out;
}

bool keeps_structure(const Case& c, const std::vector<HostTensor>& inputs) {
  for (int k : movable_inputs(c)) {
    const HostTensor& t = inputs[static_cast<std::size_t>(k)];
    const Domain& d = c.decl.inputs[static_cast<std::size_t>(k)].domain;
    // A domain without negative values draws a quantity that has none (a second moment, a
    // probability, a scale): a sign flip would leave the op's definition, not find a kernel's bug.
    const bool non_negative = d.lo >= 0;
    for (std::int64_t i = 0; i < t.numel(); ++i)
      if (on_unjudged_kink(c, k, t.get(i)) || (non_negative && t.get(i) < 0)) return false;
  }
  return true;
}

}  // namespace gp
