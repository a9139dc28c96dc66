#include "harness/tolerance.hpp"

#include <cstdio>
#include <map>

namespace gp {

namespace {

using enum MathFn;

// ULP budgets per API, float arithmetic (GPU-NOTES.md table). The double-precision tables of
// OpenCL are the same or tighter for these functions, so one table serves both.
MathBudget opencl_budget(MathFn fn) {
  switch (fn) {
    case div:
      return {2.5};
    case sqrt:
      return {3};
    case rsqrt:
      return {2};
    case exp:
      return {3};
    case log:
      return {3};
    case pow:
      return {16};
    case sincos:
      return {4};
    case tanh:
      return {5};
    case erf:
      return {16};
  }
  return {};
}

// Vulkan: exp is 3 + 2|x| ULP; the 2|x| part is argument conditioning, which the reference's
// scale already carries (|x * f'(x)|), so the chain allowance covers it. sin/cos and log near 1
// are specified in absolute error.
MathBudget vulkan_budget(MathFn fn, DType compute) {
  const bool f64 = compute == DType::f64;
  switch (fn) {
    case div:
      return {2.5};
    case sqrt:
      return {4.5};  // inherited from 1/inversesqrt: 2.5 + 2
    case rsqrt:
      return {2};
    case exp:
      return {3};
    case log:
      return {3, f64 ? 0.0 : 0x1p-21};
    case pow:
      return {3, f64 ? 0.0 : 0x1p-21};  // exp2(y * log2 x): exp's and log's budgets
    case sincos:
      return {4, f64 ? 0.0 : 0x1p-11};
    case tanh:
      return {8};  // from sinh/cosh, i.e. two exps and a divide
    case erf:
      return {16};  // no SPIR-V erf: composed from exp, as OpenCL's budget
  }
  return {};
}

// glibc libm: the float and double functions used here are documented within 1-2 ULP.
MathBudget cpu_budget(MathFn fn) { return {fn == div || fn == sqrt ? 0.5 : 2.0}; }

double chain_allowance(OpFamily f, bool backward) {
  switch (f) {
    case OpFamily::reduction:
    case OpFamily::linalg:
      return backward ? 4 : 2;  // the scale already holds n * sum|terms|
    default:
      return backward ? 6 : 4;
  }
}

}  // namespace

MathBudget math_budget(const std::string& kind, MathFn fn, DType compute) {
  if (kind == "opencl") return opencl_budget(fn);
  if (kind == "vulkan") return vulkan_budget(fn, compute);
  return cpu_budget(fn);
}

const std::vector<MathFn>& op_math_functions(OpKind op) {
  static const std::map<OpKind, std::vector<MathFn>> table = {
      {OpKind::reciprocal, {div}},
      {OpKind::exp, {exp}},
      {OpKind::expm1, {exp}},
      {OpKind::log, {log, div}},
      {OpKind::log1p, {log, div}},
      {OpKind::sqrt, {sqrt, div}},
      {OpKind::rsqrt, {rsqrt, div}},
      {OpKind::pow_scalar, {pow, div}},
      {OpKind::sin, {sincos}},
      {OpKind::cos, {sincos}},
      {OpKind::tanh, {tanh}},
      {OpKind::sigmoid, {exp, div}},
      {OpKind::softplus, {exp, log, div}},
      {OpKind::silu, {exp, div}},
      {OpKind::elu, {exp}},
      {OpKind::gelu, {erf, exp, tanh}},
      {OpKind::div, {div}},
      {OpKind::pow, {pow, log}},
      {OpKind::mean, {div}},
      {OpKind::logsumexp, {exp, log}},
      {OpKind::variance, {div}},
      {OpKind::softmax, {exp, div}},
      {OpKind::log_softmax, {exp, log}},
      {OpKind::layer_norm, {rsqrt, sqrt, div}},
      {OpKind::mse_loss, {div}},
      {OpKind::cross_entropy, {exp, log, div}},
      {OpKind::bce_with_logits, {exp, log, div}},
      {OpKind::gumbel_softmax, {exp, div}},
  };
  static const std::vector<MathFn> none;
  auto it = table.find(op);
  return it == table.end() ? none : it->second;
}

std::string backend_kind(const std::string& device_id) { return device_id.substr(0, device_id.find(':')); }

Tolerance tolerance_for(const Case& c, const std::string& kind, bool backward, bool flushes_subnormals) {
  Tolerance t;
  const DType storage = c.dtype;
  const DType compute = (storage == DType::f64) ? DType::f64 : DType::f32;
  t.u_compute = unit_roundoff(compute);
  t.u_storage = unit_roundoff(storage);
  OpFamily fam = op_family(c.decl.op);
  if (fam == OpFamily::layout) {
    t.exact = true;
    return t;
  }
  double k = chain_allowance(fam, backward);
  for (MathFn fn : op_math_functions(c.decl.op)) {
    MathBudget b = math_budget(kind, fn, compute);
    k += 2 * b.ulps;
    t.abs_allowance += b.abs_error;
  }
  k += c.decl.tolerance.extra_budget;
  t.k_compute = k;
  if (storage != compute) {
    t.k_storage_value = 1;
    t.k_storage = backward ? 2 : 0;
  }
  // Results in the subnormal range round to its fixed spacing, or flush to zero on a device
  // that may: an absolute error of a few spacings, or of the smallest normal number.
  const double smallest_normal = std::ldexp(1.0, min_normal_exponent(storage));
  t.floor = (backward ? 4 : 2) * (flushes_subnormals ? smallest_normal : ulp_of(storage, 0.0));
  t.loosened = c.decl.tolerance.reason;
  return t;
}

std::string Tolerance::describe() const {
  if (exact) return "exact (values are moved)";
  char buf[200];
  std::snprintf(buf, sizeof buf, "%g*u_c*scale", k_compute);
  std::string s = buf;
  if (k_storage_value > 0) {
    std::snprintf(buf, sizeof buf, " + u_s*(%g*|v| + %g*scale)", k_storage_value, k_storage);
    s += buf;
  }
  if (abs_allowance > 0) {
    std::snprintf(buf, sizeof buf, " + %.3g abs", abs_allowance);
    s += buf;
  }
  if (!loosened.empty()) s += " (loosened: " + loosened + ")";
  return s;
}

}  // namespace gp
