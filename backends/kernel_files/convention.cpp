#include "backends/kernel_files/convention.hpp"

#include "backends/kernel_files/params.hpp"

namespace gp::kernel_files {

std::string_view pass_name(Pass p) { return p == Pass::forward ? "forward" : "backward"; }

std::string kernel_name(const KernelName& k) {
  return std::string(op_name(k.op)) + "_" + std::string(pass_name(k.pass)) + "_" + std::string(dtype_name(k.dtype));
}

ParsedName parse_kernel_name(std::string_view name) {
  const auto last = name.rfind('_');
  if (last == std::string_view::npos)
    return {std::nullopt, "'" + std::string(name) + "' is not OP_forward_DTYPE or OP_backward_DTYPE"};
  const auto dtype = parse_dtype(name.substr(last + 1));
  if (!dtype || !is_float(*dtype))
    return {std::nullopt, "'" + std::string(name) + "' ends in '" + std::string(name.substr(last + 1)) +
                              "', not a floating-point dtype (f16, bf16, f32, f64)"};
  const std::string_view head = name.substr(0, last);
  for (Pass p : {Pass::forward, Pass::backward}) {
    const std::string suffix = "_" + std::string(pass_name(p));
    if (head.size() <= suffix.size() || head.substr(head.size() - suffix.size()) != suffix) continue;
    const std::string_view op = head.substr(0, head.size() - suffix.size());
    const auto kind = parse_op(op);
    if (!kind)
      return {std::nullopt, "'" + std::string(name) + "' names op '" + std::string(op) + "', not in the catalog"};
    if (auto why = op_refusal(*kind)) return {std::nullopt, "'" + std::string(name) + "': " + *why};
    if (p == Pass::backward && !has_backward(*kind))
      return {std::nullopt,
              "'" + std::string(name) + "': " + std::string(op) + " has no backward (no input gets a gradient)"};
    return {KernelName{*kind, p, *dtype}, {}};
  }
  return {std::nullopt, "'" + std::string(name) + "' has no _forward_ or _backward_ before its dtype"};
}

std::optional<std::string> op_refusal(OpKind op) {
  if (op_arity(op) < 0)
    return std::string(op_name(op)) + " takes a variable number of inputs, so its kernels have no fixed buffers";
  return std::nullopt;
}

bool has_backward(OpKind op) { return !op_is_forward_only(op); }

std::vector<std::string> buffer_names(OpKind op, Pass pass) {
  std::vector<std::string> names;
  const int inputs = op_arity(op);
  for (int i = 0; i < inputs; ++i) names.push_back("in" + std::to_string(i));
  names.emplace_back("out");
  if (pass == Pass::backward) {
    names.emplace_back("dout");
    for (int i = 0; i < inputs; ++i)
      if (input_is_differentiable(op, i)) names.push_back("grad" + std::to_string(i));
  }
  return names;
}

int argument_count(OpKind op, Pass pass) { return static_cast<int>(buffer_names(op, pass).size()) + 1; }

std::string signature(const KernelName& k) {
  std::string s = kernel_name(k) + "(";
  for (const auto& b : buffer_names(k.op, k.pass)) s += b + ", ";
  return s + "params)";
}

std::optional<std::string> refusal(const OpCall& call, const std::function<bool(const std::string&)>& has,
                                   const std::string& dir) {
  if (auto why = op_refusal(call.kind)) return why;
  for (Pass pass : {Pass::forward, Pass::backward}) {
    if (pass == Pass::backward && !has_backward(call.kind)) continue;
    const std::string name = kernel_name({call.kind, pass, call.dtype});
    if (!has(name))
      return "no kernel " + name + " in " + dir +
             (pass == Pass::backward ? " (an op is checked with its forward and its backward)" : "");
    const Params p = make_params(call, pass);
    if (!p.block) return "kernel files take no " + p.refusal;
  }
  return std::nullopt;
}

}  // namespace gp::kernel_files
