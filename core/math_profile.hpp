// What a device's math promises: the accuracy of each library function, by argument, and the
// formulation of the backwards that compute from the forward's value instead of the inputs. The
// reference (reference/tracked.hpp) propagates these budgets, one rounding per arithmetic step,
// through an op's own formula to bound the error a correct kernel may commit; every backend
// states its device's profile (backends/backend.hpp, DeviceInfo::math).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/op.hpp"

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
  // Whether the device's VJP of `op` computes the derivative from the forward's value, the result
  // it is given or that value recomputed (tanh's 1 - y^2, sigmoid's y (1 - y), exp(x - y) for
  // logsumexp), rather than stably from the inputs.
  // That form loses every significant digit where 1 - y^2 cancels, so a device states it
  // (docs/error-model.md, "Backward formulations"); undeclared, the bound is the stable form's.
  virtual bool backward_reads_output(OpKind) const { return false; }
};

std::optional<MathFn> parse_math_fn(std::string_view name);

// The accuracy a device promises for one function in one compute dtype (f32 or f64), over the
// function's whole domain, and where that promise is written.
struct DeclaredBudget {
  MathFn fn;
  DType compute;
  FnBudget budget;
  std::string source;
};
// "exp f32 4 ULP" (+ "+ 1e-06" where abs is set).
std::string describe(const DeclaredBudget& b);

// `base` with each declared budget in place of base's for its function and dtype; a source that
// names every declaration (it keys the reference cache and shows in each check's tolerance).
// Interned like with_backward_from_output.
const MathProfile& with_declared_budgets(const MathProfile& base, std::vector<DeclaredBudget> budgets);

// Whether a declared budget allows more than `base` does for its function and dtype at some
// argument of a fixed sample over the function's domain: a promise looser than the profile the
// device names, which reports flag.
bool looser_than(const DeclaredBudget& declared, const MathProfile& base);

// Correct rounding everywhere (0.5 ULP): the profile of an ideal device, used by unit tests.
const MathProfile& correctly_rounded_profile();

// `base` with the backwards of `ops` declared to compute from the forward's value: its budgets, and a
// source that names the declaration (which keys the reference cache and shows in reports). The
// same base and set give the same profile object, which lives as long as the program.
const MathProfile& with_backward_from_output(const MathProfile& base, std::vector<OpKind> ops);

}  // namespace gp
