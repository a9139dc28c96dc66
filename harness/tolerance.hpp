// The tolerance model. A correct kernel's error at element i stays within
//     bound_i = K * u_c * scale_i  +  u_s * (V * |v_i| + S * scale_i)  +  A_i
// where scale_i is the reference's error scale (|value| + argument conditioning, or
// n * sum|terms| for accumulations; see reference/README.md), u_c the unit roundoff of the
// arithmetic, u_s that of the storage type when it is narrower (f16/bf16 store f32 results),
// V and S are 0 unless the storage type is narrower: a 16-bit store rounds the result once
// (V = 1), and a backward kernel that reads a 16-bit forward output carries that rounding
// through the op (S), K = 2 * (ULP budgets of the device math functions the op uses) + a chain allowance for the
// op's own arithmetic roundings, and A an absolute allowance for functions specified in
// absolute error (Vulkan sin/cos, log near 1). Budgets come from the API specifications
// (OpenCL C relative-error tables, Vulkan "Precision and Operation of SPIR-V Instructions")
// and glibc's documented libm accuracy for the CPU backend. A case may add budget with a
// written reason, which every report prints.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cases/case.hpp"

namespace gp {

enum class MathFn : std::uint8_t { div, sqrt, rsqrt, exp, log, pow, sincos, tanh, erf };

struct MathBudget {
  double ulps = 0;       // relative error, ULP of the result
  double abs_error = 0;  // absolute error, where the specification states one
};

// Budget of fn on a backend kind ("cpu", "opencl", "vulkan") for f32-or-wider arithmetic.
MathBudget math_budget(const std::string& backend_kind, MathFn fn, DType compute);
// The math library functions an op's forward and backward kernels may call.
const std::vector<MathFn>& op_math_functions(OpKind op);

struct Tolerance {
  double k_compute = 0;        // K
  double u_compute = 0;        // u_c
  double k_storage_value = 0;  // V
  double k_storage = 0;        // S
  double u_storage = 0;        // u_s
  double abs_allowance = 0;
  double floor = 0;      // subnormal spacing of the storage type: results there round absolutely
  bool exact = false;    // layout ops: values are moved, any difference is a bug
  std::string loosened;  // the case's reason for extra budget, if any
  // `weight` scales the absolute terms (the cotangent's size for gradients): an absolute
  // error of an intermediate value (a function specified in absolute error, a subnormal result
  // rounded or flushed) reaches a gradient multiplied by the cotangent.
  // The scale is taken in long double: near double's overflow (exp(708)) a scale exceeds
  // double's range where the bound, a small multiple of u times it, does not.
  double bound(long double scale, double value, double weight = 1.0) const {
    if (exact) return 0.0;
    const long double relative = static_cast<long double>(k_compute * u_compute + k_storage * u_storage) * scale;
    return static_cast<double>(relative) + k_storage_value * u_storage * std::fabs(value) + abs_allowance * weight +
           floor * std::max(1.0, weight);
  }
  std::string describe() const;
};

// The tolerance of a case on a backend kind. `backward` widens the chain allowance for the
// extra arithmetic of a VJP. `flushes_subnormals`: the device may flush subnormal results to
// zero (DeviceInfo::may_flush_subnormals), so the floor is the smallest normal number.
Tolerance tolerance_for(const Case& c, const std::string& backend_kind, bool backward, bool flushes_subnormals = false);

// The backend kind of a device id: "opencl:1" -> "opencl".
std::string backend_kind(const std::string& device_id);

}  // namespace gp
