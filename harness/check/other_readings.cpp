#include "harness/check/other_readings.hpp"

#include <cfloat>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "harness/check/numerical.hpp"
#include "harness/check/tied_maxima.hpp"

namespace gp {

namespace {

constexpr long double kInf = std::numeric_limits<long double>::infinity();

bool is_kink(std::span<const double> kinks, long double x) {
  for (double kink : kinks)
    if (x == kink) return true;
  return false;
}

// Whether input element x sits exactly where the contract's value (the forward) or derivative
// (the backward) has two one-sided values: a unary op's kinks for its backward; a straight-through
// op's steps and a B-spline's knots for both.
bool on_two_sided_point(const Case& c, long double x, bool backward) {
  const OpKind op = c.decl.op;
  if (op_is_straight_through(op) || op == OpKind::bspline_basis)
    return distance_to_kinks(c, 0, static_cast<double>(x)) == 0;
  return backward && is_kink(op_kinks(op), x);
}

// The inputs a device may have read instead of the given ones, each a whole set of inputs (a
// slot: every element with another reading moved to its s-th one), and how many elements have them
// for each reason.
struct Readings {
  std::vector<std::vector<ref::RefTensor>> slots;
  std::int64_t on_kinks = 0, subnormal = 0, ties = 0;
};

// Input 0's elements on a kink, a step or a knot, and those a flushing device may read as zero.
void add_input0_readings(const ReadingContext& at, bool backward, Readings& r) {
  const ref::RefTensor& x = at.data.ref_inputs[0];
  const std::span<const double> kinks = op_kinks(at.c.decl.op);
  const bool unary = op_family(at.c.decl.op) == OpFamily::unary;
  // The compute type's: 16-bit storage is computed in f32, where f16's subnormals are normal.
  const long double smallest_normal = at.c.dtype == DType::f64 ? DBL_MIN : FLT_MIN;
  auto put = [&](std::size_t i, std::size_t slot, long double v) {
    if (r.slots.size() <= slot) r.slots.resize(slot + 1, at.data.ref_inputs);
    r.slots[slot][0].v[i] = v;
  };
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    const long double xi = x.v[i];
    if (on_two_sided_point(at.c, xi, backward)) {
      put(i, 0, std::nextafter(xi, -kInf));
      put(i, 1, std::nextafter(xi, kInf));
      ++r.on_kinks;
    } else if (unary && at.flush && xi != 0 && std::fabs(xi) < smallest_normal) {
      put(i, 0, std::copysign(0.0L, xi));
      if (backward && is_kink(kinks, 0)) {
        put(i, 1, std::nextafter(0.0L, -kInf));
        put(i, 2, std::nextafter(0.0L, kInf));
      }
      ++r.subnormal;
    }
  }
}

// maximum's and minimum's ties: the second input a hair above, then below, the first wherever they
// tie, so that a kernel's comparison may select either input (the contract splits the cotangent).
void add_tie_readings(const ReadingContext& at, Readings& r) {
  const std::vector<ref::RefTensor>& in = at.data.ref_inputs;
  const BroadcastPlan p = broadcast_plan(in[0].shape, in[1].shape);
  std::vector<ref::RefTensor> up = in, down = in;
  for (std::int64_t i = 0; i < p.numel; ++i) {
    const auto ia = static_cast<std::size_t>(p.a_index(i)), ib = static_cast<std::size_t>(p.b_index(i));
    if (in[0].v[ia] != in[1].v[ib]) continue;
    up[1].v[ib] = std::nextafter(in[1].v[ib], kInf);
    down[1].v[ib] = std::nextafter(in[1].v[ib], -kInf);
    ++r.ties;
  }
  if (r.ties == 0) return;
  r.slots.push_back(std::move(up));
  r.slots.push_back(std::move(down));
}

// How far `got` is from `value` in units of its bound (the distance itself against a zero bound).
double distance(const Tolerance& tol, const ref::ErrorBound& err, long double value, double got) {
  if (got == value) return 0;  // an infinity read off a zero included
  const double miss = std::fabs(got - static_cast<double>(value));
  const double bound = tol.bound(err, static_cast<double>(value));
  return bound > 0 ? miss / bound : std::numeric_limits<double>::infinity();
}

// How far the worst element of `got` is from `expected`, in units of its bounds.
double worst_distance(const Tolerance& tol, const ref::RefTensor& expected, const HostTensor& got) {
  double worst = 0;
  for (std::size_t e = 0; e < expected.v.size(); ++e)
    worst = std::max(worst, distance(tol, expected.err[e], expected.v[e], got.get(static_cast<std::int64_t>(e))));
  return worst;
}

// At ties one selection holds for both gradients: the contract's split, or either input selected
// at every tie (a kernel's comparison). Gradient `tensor` under the selection whose worse
// gradient is nearest what the device gave; without the other gradient, this one's nearest.
ref::RefTensor one_selection(const ReadingContext& at, const Readings& r, const ref::RefTensor& contract,
                             const std::vector<ref::RefTensor>& at_slot, const HostTensor& got, int tensor) {
  const int other = 1 - tensor;
  std::vector<ref::RefTensor> mine = {contract}, others;
  mine.insert(mine.end(), at_slot.begin(), at_slot.end());
  if (at.grads) {
    others.push_back(at.data.bounded(at.math, at.flush).grads[static_cast<std::size_t>(other)]);
    for (const std::vector<ref::RefTensor>& moved : r.slots)
      others.push_back(ref::bounded_tensor(at.data.call, moved, at.data.ref_cotangent, other, at.math, at.flush));
  }
  std::size_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::size_t s = 0; s < mine.size(); ++s) {
    double d = worst_distance(at.tol, mine[s], got);
    if (at.grads) d = std::max(d, worst_distance(at.tol, others[s], (*at.grads)[static_cast<std::size_t>(other)]));
    if (d < best_distance) {
      best_distance = d;
      best = s;
    }
  }
  return mine[best];
}

// At a max reduction's tied maxima a kernel may give the cotangent to any one of them (its own
// comparison: slot s selects each row's s-th) or split it evenly (PyTorch's amax): per row, the
// reading whose worst element is nearest what the device gave. The contract gives it to the first.
ref::RefTensor one_reading_per_row(const ReadingContext& at, const std::vector<std::vector<std::size_t>>& rows,
                                   const ref::RefTensor& contract, const HostTensor& got) {
  std::size_t most = 0;
  for (const auto& row : rows) most = std::max(most, row.size());
  std::vector<ref::RefTensor> readings = {contract};
  for (std::size_t slot = 0; slot < most; ++slot) {
    std::vector<ref::RefTensor> moved = at.data.ref_inputs;
    for (const auto& row : rows)
      if (slot < row.size()) moved[0].v[row[slot]] = std::nextafter(moved[0].v[row[slot]], kInf);
    readings.push_back(ref::bounded_tensor(at.data.call, moved, at.data.ref_cotangent, 0, at.math, at.flush));
  }
  ref::RefTensor split = contract;  // the first tied maximum holds the row's cotangent
  const long double unit = at.c.dtype == DType::f64 ? 0x1p-53L : 0x1p-24L;  // one rounding of g / k
  for (const auto& row : rows)
    for (const std::size_t e : row) {
      const auto k = static_cast<long double>(row.size());
      split.v[e] = contract.v[row.front()] / k;
      split.err[e] = contract.err[row.front()];
      split.err[e].det = split.err[e].det / k + std::fabs(split.v[e]) * unit;
    }
  readings.push_back(std::move(split));
  const ref::RefTensor& x = at.data.ref_inputs[0];
  const AxisSplit s = split_at_axis(x.shape, at.data.call.attrs.axis);
  ref::RefTensor expected = contract;
  for (const auto& row : rows) {
    // The whole row: its other entries take 0 in every reading, and must.
    const std::size_t first = row.front(), inner = static_cast<std::size_t>(s.inner);
    const std::size_t start = first - (first / inner % static_cast<std::size_t>(s.n)) * inner;
    std::size_t best = 0;
    double best_distance = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < readings.size(); ++r) {
      double worst = 0;
      for (std::int64_t j = 0; j < s.n; ++j) {
        const std::size_t e = start + static_cast<std::size_t>(j) * inner;
        worst = std::max(worst,
                         distance(at.tol, readings[r].err[e], readings[r].v[e], got.get(static_cast<std::int64_t>(e))));
      }
      if (worst < best_distance) {
        best_distance = worst;
        best = r;
      }
    }
    for (std::int64_t j = 0; j < s.n; ++j) {
      const std::size_t e = start + static_cast<std::size_t>(j) * inner;
      expected.v[e] = readings[best].v[e];
      expected.err[e] = readings[best].err[e];
    }
  }
  return expected;
}

}  // namespace

std::string OtherReadings::describe() const {
  std::vector<std::string> parts;
  if (on_kinks > 0)
    parts.push_back(std::to_string(on_kinks) + " element(s) exactly on a kink" +
                    (forward ? ", a step or a knot, judged against either one-sided value"
                             : ", judged against either one-sided derivative"));
  if (subnormal > 0)
    parts.push_back(
        std::to_string(subnormal) +
        " subnormal input(s) the device may read as zero (it may flush), judged against the value there too");
  if (ties > 0)
    parts.push_back(std::to_string(ties) + " tie(s) of the two inputs, judged against either input selected");
  if (tied_rows > 0)
    parts.push_back(std::to_string(tied_rows) +
                    " row(s) whose maximum ties, judged against any one tied maximum selected or the cotangent split "
                    "evenly");
  parts.push_back(std::to_string(other_side) + " took the one the catalog's contract does not");
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

std::optional<OtherReadings> judge_other_readings(const ReadingContext& at, const ref::RefTensor& contract,
                                                  const HostTensor& got, int tensor) {
  const OpKind op = at.c.decl.op;
  if (op == OpKind::max && tensor == 0 && contract.err.size() == contract.v.size()) {
    const std::vector<std::vector<std::size_t>> rows =
        tied_maxima(at.data.ref_inputs[0].shape, at.data.call.attrs.axis, at.data.ref_inputs[0].v);
    if (rows.empty()) return std::nullopt;
    OtherReadings j{.expected = one_reading_per_row(at, rows, contract, got),
                    .tied_rows = static_cast<std::int64_t>(rows.size())};
    for (std::size_t e = 0; e < contract.v.size(); ++e) j.other_side += j.expected.v[e] != contract.v[e] ? 1 : 0;
    return j;
  }
  const bool ties = (op == OpKind::maximum || op == OpKind::minimum) && tensor >= 0;
  if ((tensor > 0 && !ties) || (!ties && !kinks_have_stated_readings(op)) || contract.err.size() != contract.v.size())
    return std::nullopt;
  Readings r;
  if (ties) {
    add_tie_readings(at, r);
  } else {
    add_input0_readings(at, tensor == 0, r);
  }
  if (r.slots.empty()) return std::nullopt;
  std::vector<ref::RefTensor> at_slot;
  for (const std::vector<ref::RefTensor>& moved : r.slots)
    at_slot.push_back(ref::bounded_tensor(at.data.call, moved, at.data.ref_cotangent, tensor, at.math, at.flush));
  OtherReadings j{
      .expected = contract, .on_kinks = r.on_kinks, .subnormal = r.subnormal, .ties = r.ties, .forward = tensor < 0};
  if (ties) {
    j.expected = one_selection(at, r, contract, at_slot, got, tensor);
    for (std::size_t e = 0; e < contract.v.size(); ++e) j.other_side += j.expected.v[e] != contract.v[e] ? 1 : 0;
    return j;
  }
  // An element no moved input reaches has the contract's value in every slot.
  for (std::size_t e = 0; e < contract.v.size(); ++e) {
    const double g = got.get(static_cast<std::int64_t>(e));
    double best = distance(at.tol, contract.err[e], contract.v[e], g);
    for (const ref::RefTensor& other : at_slot) {
      const double d = distance(at.tol, other.err[e], other.v[e], g);
      if (d < best && other.v[e] != contract.v[e]) {
        best = d;
        j.expected.v[e] = other.v[e];
        j.expected.err[e] = other.err[e];
      }
    }
    if (j.expected.v[e] != contract.v[e]) ++j.other_side;
  }
  return j;
}

bool kinks_have_stated_readings(OpKind op) { return op_family(op) == OpFamily::unary || op == OpKind::bspline_basis; }

}  // namespace gp
