#include "core/math_profile.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace gp {

std::string_view math_fn_name(MathFn f) {
  static constexpr std::string_view names[kMathFnCount] = {"div", "sqrt", "rsqrt", "exp",  "expm1", "log", "log1p",
                                                           "pow", "sin",  "cos",   "tanh", "erf",   "erfc"};
  return names[static_cast<int>(f)];
}

namespace {

class CorrectlyRounded final : public MathProfile {
 public:
  std::string source() const override { return "correctly rounded (0.5 ULP) everywhere"; }
  FnBudget budget(MathFn, DType, long double, long double, long double) const override { return {0.5}; }
};

class BackwardFromOutput final : public MathProfile {
 public:
  BackwardFromOutput(const MathProfile& base, std::vector<OpKind> ops) : base_(base), ops_(std::move(ops)) {}
  std::string source() const override {
    std::string names;
    for (OpKind op : ops_) names += (names.empty() ? "" : ", ") + std::string(op_name(op));
    return base_.source() + "; the backward of " + names + " computes from the forward's value (declared)";
  }
  FnBudget budget(MathFn fn, DType compute, long double x, long double y, long double x2) const override {
    return base_.budget(fn, compute, x, y, x2);
  }
  bool backward_reads_output(OpKind op) const override {
    return std::binary_search(ops_.begin(), ops_.end(), op) || base_.backward_reads_output(op);
  }

 private:
  const MathProfile& base_;
  std::vector<OpKind> ops_;  // sorted, unique
};

}  // namespace

const MathProfile& correctly_rounded_profile() {
  static const CorrectlyRounded p;
  return p;
}

const MathProfile& with_backward_from_output(const MathProfile& base, std::vector<OpKind> ops) {
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  if (ops.empty()) return base;
  // Interned: a profile's address identifies it to the memos of bounds, and devices described
  // alike (every device of a plugin) share one.
  static std::mutex mutex;
  static std::map<std::pair<const MathProfile*, std::vector<OpKind>>, std::unique_ptr<BackwardFromOutput>> interned;
  const std::lock_guard lock(mutex);
  auto& slot = interned[{&base, ops}];
  if (!slot) slot = std::make_unique<BackwardFromOutput>(base, std::move(ops));
  return *slot;
}

}  // namespace gp
