// Math budgets a device declares for itself (a plugin's ABI version 4 `math_budgets`): a profile
// that answers with the declared budget for those functions and dtypes and with its base's for
// the rest, and the comparison that flags a promise looser than the base.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "core/math_profile.hpp"

namespace gp {

std::optional<MathFn> parse_math_fn(std::string_view name) {
  for (int i = 0; i < kMathFnCount; ++i)
    if (math_fn_name(static_cast<MathFn>(i)) == name) return static_cast<MathFn>(i);
  return std::nullopt;
}

std::string describe(const DeclaredBudget& b) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s %s %g ULP", std::string(math_fn_name(b.fn)).c_str(),
                std::string(dtype_name(b.compute)).c_str(), b.budget.ulps);
  std::string s = buf;
  if (b.budget.abs > 0) {
    std::snprintf(buf, sizeof buf, " + %g", b.budget.abs);
    s += buf;
  }
  return s;
}

namespace {

class DeclaredBudgets final : public MathProfile {
 public:
  DeclaredBudgets(const MathProfile& base, std::vector<DeclaredBudget> budgets)
      : base_(base), budgets_(std::move(budgets)) {}
  std::string source() const override {
    std::string s = base_.source() + "; declared by the device:";
    for (const DeclaredBudget& b : budgets_) s += " " + describe(b) + " (" + b.source + ")";
    return s;
  }
  FnBudget budget(MathFn fn, DType compute, long double x, long double y, long double x2) const override {
    for (const DeclaredBudget& b : budgets_)
      if (b.fn == fn && b.compute == compute) return b.budget;
    return base_.budget(fn, compute, x, y, x2);
  }
  bool backward_reads_output(OpKind op) const override { return base_.backward_reads_output(op); }

 private:
  const MathProfile& base_;
  std::vector<DeclaredBudget> budgets_;
};

// The exact result of fn at x (pow: exponent x2), in long double: what an allowance in ULPs is of.
long double exact(MathFn fn, long double x, long double x2) {
  switch (fn) {
    case MathFn::div:
      return 1 / x;
    case MathFn::sqrt:
      return std::sqrt(x);
    case MathFn::rsqrt:
      return 1 / std::sqrt(x);
    case MathFn::exp:
      return std::exp(x);
    case MathFn::expm1:
      return std::expm1(x);
    case MathFn::log:
      return std::log(x);
    case MathFn::log1p:
      return std::log1p(x);
    case MathFn::pow:
      return std::pow(x, x2);
    case MathFn::sin:
      return std::sin(x);
    case MathFn::cos:
      return std::cos(x);
    case MathFn::tanh:
      return std::tanh(x);
    case MathFn::erf:
      return std::erf(x);
    case MathFn::erfc:
      return std::erfc(x);
  }
  return 0;
}

double allowance(const FnBudget& b, DType compute, long double y) {
  return b.ulps * ulp_of(compute, static_cast<double>(std::fabs(y))) + b.abs;
}

}  // namespace

bool looser_than(const DeclaredBudget& declared, const MathProfile& base) {
  // Positive arguments lie in every function's domain; 10 reaches the saturated tails of tanh, erf.
  constexpr std::array<long double, 6> kArguments = {0.1L, 0.5L, 1.25L, 2.5L, 4.0L, 10.0L};
  constexpr long double kExponent = 1.5L;
  for (long double x : kArguments) {
    const long double y = exact(declared.fn, x, kExponent);
    const FnBudget own = base.budget(declared.fn, declared.compute, x, y, kExponent);
    if (allowance(declared.budget, declared.compute, y) > allowance(own, declared.compute, y)) return true;
  }
  return false;
}

const MathProfile& with_declared_budgets(const MathProfile& base, std::vector<DeclaredBudget> budgets) {
  if (budgets.empty()) return base;
  std::sort(budgets.begin(), budgets.end(), [](const DeclaredBudget& a, const DeclaredBudget& b) {
    return std::pair(a.fn, a.compute) < std::pair(b.fn, b.compute);
  });
  // Interned by the declaration's text: a profile's address identifies it to the memos of bounds.
  std::string key;
  for (const DeclaredBudget& b : budgets) key += describe(b) + " (" + b.source + ");";
  static std::mutex mutex;
  static std::map<std::pair<const MathProfile*, std::string>, std::unique_ptr<DeclaredBudgets>> interned;
  const std::lock_guard lock(mutex);
  auto& slot = interned[{&base, key}];
  if (!slot) slot = std::make_unique<DeclaredBudgets>(base, std::move(budgets));
  return *slot;
}

}  // namespace gp
