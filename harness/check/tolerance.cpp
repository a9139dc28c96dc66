#include "harness/check/tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gp {

double propagated_error(const ref::ErrorBound& e) {
  // In long double first: near double's overflow (exp(708)) a term may exceed double's range
  // where the sum, compared with a value of that size, is what matters.
  const long double k = kFormulation;
  const long double b = e.spec + k * (e.det - e.spec) + std::min(k * e.acc, static_cast<long double>(kLambda) * e.prob);
  return static_cast<double>(b * (1 + static_cast<long double>(kReferenceShare)));
}

double Tolerance::bound(const ref::ErrorBound& e, double value) const {
  if (exact) return 0.0;
  const double v = std::fabs(value);
  double b = propagated_error(e);
  if (extra_ulps > 0) b += extra_ulps * ulp_of(storage, v);
  if (rounds_to_storage) b += ulp_of(storage, v + b) / 2;
  if (flushes && v < std::ldexp(1.0, min_normal_exponent(storage))) b += v;
  return b;
}

Tolerance tolerance_for(const Case& c, const MathProfile& profile, bool flushes_subnormals) {
  Tolerance t;
  t.storage = c.dtype;
  t.exact = op_family(c.decl.op) == OpFamily::layout;
  t.rounds_to_storage = dtype_size(c.dtype) == 2;
  t.flushes = flushes_subnormals;
  t.extra_ulps = c.decl.tolerance.extra_ulps;
  t.loosened = c.decl.tolerance.reason;
  t.profile = profile.source();
  t.backward_from_output = profile.backward_reads_output(c.decl.op);  // for the report: the bounds read it themselves
  return t;
}

std::string Tolerance::describe() const {
  if (exact) return "exact (values are moved)";
  std::string s = "propagated first-order bound (" + profile + "; roundings x2; accumulations: min(worst case, " +
                  std::to_string(kLambda).substr(0, 3) + " x probabilistic))";
  if (rounds_to_storage) s += " + half an ULP of the " + std::string(dtype_name(storage)) + " store";
  if (flushes) s += " + flush of subnormal results";
  if (extra_ulps > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " + %g ULP", extra_ulps);
    s += buf;
  }
  if (!loosened.empty()) s += " (loosened: " + loosened + ")";
  return s;
}

}  // namespace gp
