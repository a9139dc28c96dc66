// The shape rules of the ops this plugin maps, as core/README.md states them (the plugin links
// nothing of gradparity's): a call that breaks one is refused in supports() before a oneDNN
// descriptor is made from it, since the families read the inputs and dims they are handed
// (docs/invalid-calls.md).
#include <string_view>

#include "onednn_ops.hpp"

namespace gp_onednn {

namespace {

using Dims = std::vector<int64_t>;

Dims exact_dims(const gp_tensor_desc& t) { return Dims(t.dims, t.dims + t.rank); }

std::string text(const Dims& d) {
  if (d.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s;
}

int arity(std::string_view op) {
  if (op == "layer_norm" || op == "linear") return 3;
  if (op == "rms_norm" || op == "matmul" || binary_family.has(op.data())) return 2;
  return 1;
}

// NumPy broadcasting, dims aligned on the right; nothing where a pair of sizes differs.
std::optional<Dims> broadcast(const Dims& a, const Dims& b) {
  Dims out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1, y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[out.size() - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

// The output dims the op's rule gives, or why there are none.
std::optional<std::string> rule_output(const gp_op_call& c, Dims& want) {
  const std::string op = c.op;
  const Dims x = exact_dims(c.inputs[0]);
  want = x;
  if (binary_family.has(c.op)) {
    const std::optional<Dims> b = broadcast(x, exact_dims(c.inputs[1]));
    if (!b) return "shapes " + text(x) + " and " + text(exact_dims(c.inputs[1])) + " do not broadcast";
    want = *b;
  } else if (softmax_family.has(c.op) || reduction_family.has(c.op)) {
    if (x.empty() || c.attrs.axis < -static_cast<int>(x.size()) || c.attrs.axis >= static_cast<int>(x.size()))
      return "axis " + std::to_string(c.attrs.axis) + " is out of range for shape " + text(x);
    const auto axis = static_cast<std::size_t>(axis_of(c));
    if (reduction_family.has(c.op)) {
      if (x[axis] == 0 && op != "sum") return "no value over an empty axis";
      if (c.attrs.keepdim)
        want[axis] = 1;
      else
        want.erase(want.begin() + static_cast<long>(axis));
    }
  } else if (layer_norm_family.has(c.op)) {
    if (x.empty() || x.back() == 0) return "rows of at least one element, got " + text(x);
    for (int k = 1; k < c.input_count; ++k)
      if (exact_dims(c.inputs[k]) != Dims{x.back()})
        return "input " + std::to_string(k) + " must be " + text({x.back()});
  } else if (op == "matmul") {
    const Dims b = exact_dims(c.inputs[1]);
    const std::size_t r = x.size();
    if (r < 2 || r > 3 || b.size() != r) return "operands of rank 2 or 3 alike, got " + text(x) + " and " + text(b);
    if (x[r - 1] != b[r - 2]) return "inner sizes differ: " + text(x) + " x " + text(b);
    if (r == 3 && x[0] != b[0]) return "batch sizes differ";
    want[r - 1] = b[r - 1];
  } else if (op == "reshape") {
    want = Dims(c.attrs.reshape, c.attrs.reshape + c.attrs.reshape_rank);
    int64_t from = 1, to = 1;
    for (int64_t d : x) from *= d;
    for (int64_t d : want) to *= d;
    if (from != to) return "cannot reshape " + std::to_string(from) + " elements to " + text(want);
  } else if (op == "linear") {
    const Dims w = exact_dims(c.inputs[1]);
    if (x.size() != 2 || w.size() != 2 || w[1] != x[1]) return "takes x [batch, in], W [out, in] and b [out]";
    if (exact_dims(c.inputs[2]) != Dims{w[0]}) return "bias must be [" + std::to_string(w[0]) + "]";
    want = {x[0], w[0]};
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> shape_rule_problem(const gp_op_call& c) {
  const std::string op = c.op;
  const int n = arity(op);
  if (c.input_count != n) return op + " takes " + std::to_string(n) + " input(s), got " + std::to_string(c.input_count);
  for (int k = 0; k < n; ++k)
    if (c.inputs[k].dtype != c.dtype) return op + ": input " + std::to_string(k) + " is not of the call's dtype";
  Dims want;
  if (std::optional<std::string> why = rule_output(c, want)) return op + ": " + *why;
  if (exact_dims(c.output) != want)
    return op + ": output shape " + text(exact_dims(c.output)) + ", where the inputs give " + text(want);
  return std::nullopt;
}

}  // namespace gp_onednn
