#include "harness/check/other_readings.hpp"

#include <cfloat>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

namespace gp {

namespace {

constexpr long double kInf = std::numeric_limits<long double>::infinity();

bool is_kink(std::span<const double> kinks, long double x) {
  for (double kink : kinks)
    if (x == kink) return true;
  return false;
}

// Each element's other readings of input 0, in order (empty for most elements), and how many
// elements have them for each reason.
struct Readings {
  std::vector<std::vector<long double>> of;
  std::int64_t on_kinks = 0, subnormal = 0;
};

Readings readings_of(const ReadingContext& at, bool backward) {
  const ref::RefTensor& x = at.data.ref_inputs[0];
  const std::span<const double> kinks = op_kinks(at.c.decl.op);
  // The compute type's: 16-bit storage is computed in f32, where f16's subnormals are normal.
  const long double smallest_normal = at.c.dtype == DType::f64 ? DBL_MIN : FLT_MIN;
  Readings r;
  r.of.resize(x.v.size());
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    const long double xi = x.v[i];
    std::vector<long double>& other = r.of[i];
    if (backward && is_kink(kinks, xi)) {
      other = {std::nextafter(xi, -kInf), std::nextafter(xi, kInf)};
      ++r.on_kinks;
    } else if (at.flush && xi != 0 && std::fabs(xi) < smallest_normal) {
      other = {std::copysign(0.0L, xi)};
      if (backward && is_kink(kinks, 0))
        other.insert(other.end(), {std::nextafter(0.0L, -kInf), std::nextafter(0.0L, kInf)});
      ++r.subnormal;
    }
  }
  return r;
}

// How far `got` is from `value` in units of its bound (the distance itself against a zero bound).
double distance(const Tolerance& tol, const ref::ErrorBound& err, long double value, double got) {
  if (got == value) return 0;  // an infinity read off a zero included
  const double miss = std::fabs(got - static_cast<double>(value));
  const double bound = tol.bound(err, static_cast<double>(value));
  return bound > 0 ? miss / bound : std::numeric_limits<double>::infinity();
}

}  // namespace

std::string OtherReadings::describe() const {
  std::string s;
  if (on_kinks > 0)
    s = std::to_string(on_kinks) + " element(s) exactly on a kink, judged against either one-sided derivative";
  if (subnormal > 0)
    s += (s.empty() ? "" : "; ") + std::to_string(subnormal) +
         " subnormal input(s) the device may read as zero (it may flush), judged against the value there too";
  return s + "; " + std::to_string(other_side) + " took the one the catalog's contract does not";
}

std::optional<OtherReadings> judge_other_readings(const ReadingContext& at, const ref::RefTensor& contract,
                                                  const HostTensor& got, int tensor) {
  if (tensor > 0 || op_family(at.c.decl.op) != OpFamily::unary || contract.err.size() != contract.v.size())
    return std::nullopt;
  const Readings r = readings_of(at, tensor == 0);
  if (r.on_kinks + r.subnormal == 0) return std::nullopt;
  std::size_t slots = 0;
  for (const auto& other : r.of) slots = std::max(slots, other.size());
  // Slot s: every element with an s-th reading moved to it, in one evaluation (elementwise op).
  std::vector<ref::RefTensor> at_slot;
  for (std::size_t s = 0; s < slots; ++s) {
    std::vector<ref::RefTensor> moved = at.data.ref_inputs;
    for (std::size_t e = 0; e < r.of.size(); ++e)
      if (s < r.of[e].size()) moved[0].v[e] = r.of[e][s];
    at_slot.push_back(ref::bounded_tensor(at.data.call, moved, at.data.ref_cotangent, tensor, at.math, at.flush));
  }
  OtherReadings j{contract, r.on_kinks, r.subnormal, 0};
  for (std::size_t e = 0; e < r.of.size(); ++e) {
    if (r.of[e].empty()) continue;
    const double g = got.get(static_cast<std::int64_t>(e));
    double best = distance(at.tol, contract.err[e], contract.v[e], g);
    for (std::size_t s = 0; s < r.of[e].size(); ++s) {
      const ref::RefTensor& other = at_slot[s];
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

}  // namespace gp
