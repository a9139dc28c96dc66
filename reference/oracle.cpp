// The oracle's evaluation: widen the inputs exactly to MpReal, run the generic reference
// (basic_forward / basic_vjp instantiated for MpReal in the family files), narrow the results to
// hi + lo long-double pairs.
#include "reference/oracle.hpp"

#include <limits>

#include "reference/mp_real.hpp"

namespace gp::ref {

namespace {

using MpTensor = BasicRefTensor<MpReal>;

MpTensor widen(const RefTensor& t) {
  MpTensor m;
  m.shape = t.shape;
  m.v.reserve(t.v.size());
  for (long double x : t.v) m.v.emplace_back(x);  // exact: MPFR holds any long double
  return m;
}

OracleTensor narrow(const MpTensor& m) {
  OracleTensor o;
  o.shape = m.shape;
  o.hi.reserve(m.v.size());
  o.lo.reserve(m.v.size());
  for (const MpReal& x : m.v) {
    const auto hi = static_cast<long double>(x);
    o.hi.push_back(hi);
    o.lo.push_back(static_cast<long double>(MpReal(x - hi)));
  }
  return o;
}

}  // namespace

OracleResult oracle_evaluate(const OpCall& call, const std::vector<RefTensor>& inputs, const RefTensor& dout) {
  std::vector<MpTensor> in;
  in.reserve(inputs.size());
  for (const auto& t : inputs) in.push_back(widen(t));
  const MpTensor out = basic_forward(call, in);
  const std::vector<MpTensor> grads = basic_vjp(call, in, out, widen(dout));
  OracleResult r;
  r.output = narrow(out);
  for (const auto& g : grads) r.grads.push_back(narrow(g));
  return r;
}

int oracle_bits() { return std::numeric_limits<MpReal>::digits; }

std::string oracle_description() { return "MPFR " + std::to_string(oracle_bits()) + "-bit"; }

}  // namespace gp::ref
