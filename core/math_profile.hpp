// What a device's math library promises: the accuracy of each library function, by argument.
// The reference (reference/tracked.hpp) propagates these budgets, one rounding per arithmetic
// step, through an op's own formula to bound the error a correct kernel may commit; every backend
// states its device's profile (backends/backend.hpp, DeviceInfo::math).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/dtype.hpp"

namespace gp {

// The library functions kernels call. Arithmetic (+, -, *) is always correctly rounded; division
// and square roots are listed because OpenCL and Vulkan allow them more than half an ULP.
enum class MathFn : std::uint8_t { div, sqrt, rsqrt, exp, expm1, log, log1p, pow, sin, cos, tanh, erf, erfc };
inline constexpr int kMathFnCount = 13;
std::string_view math_fn_name(MathFn f);

// |computed - exact| <= ulps * ulp(exact result, compute dtype) + abs.
struct FnBudget {
  double ulps = 0;
  double abs = 0;
};

class MathProfile {
 public:
  virtual ~MathProfile() = default;
  // Where the figures come from: "OpenCL C 1.2 specification, 7.4", ...
  virtual std::string source() const = 0;
  // Budget of fn in the compute dtype (f32 for f32 and the 16-bit storage types, f64), at
  // argument x (pow: base x, exponent x2) with exact result y.
  virtual FnBudget budget(MathFn fn, DType compute, long double x, long double y, long double x2) const = 0;
};

// Correct rounding everywhere (0.5 ULP): the profile of an ideal device, used by unit tests.
const MathProfile& correctly_rounded_profile();

}  // namespace gp
