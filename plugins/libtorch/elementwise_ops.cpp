// Unary and binary ops as a PyTorch user writes them: torch.exp(x), F.softplus(x), x / y, with
// PyTorch's own defaults (softplus keeps its threshold of 20, gelu its "none"/"tanh" names).
#include "torch_ops.hpp"

namespace gp_libtorch {
namespace {

using at::Tensor;

template <Tensor (*F)(const Tensor&)>
Tensor unary(const gp_op_call&, const Tensors& in) {
  return F(in[0]);
}

template <Tensor (*F)(const Tensor&, const Tensor&)>
Tensor binary(const gp_op_call&, const Tensors& in) {
  return F(in[0], in[1]);
}

Tensor pow_scalar(const gp_op_call& c, const Tensors& in) { return at::pow(in[0], c.attrs.p); }
Tensor softplus(const gp_op_call&, const Tensors& in) { return at::softplus(in[0], /*beta=*/1, /*threshold=*/20); }
Tensor leaky_relu(const gp_op_call& c, const Tensors& in) { return at::leaky_relu(in[0], c.attrs.alpha); }
Tensor elu(const gp_op_call& c, const Tensors& in) { return at::elu(in[0], c.attrs.alpha); }
Tensor gelu(const gp_op_call& c, const Tensors& in) {
  return at::gelu(in[0], c.attrs.gelu_approx == 1 ? "tanh" : "none");
}

constexpr std::string_view kNoStraightThrough =
    "PyTorch has no straight-through op: a user composes it with detach(), a formula of the user's, not PyTorch's "
    "kernel";

const OpRow elementwise_table[] = {
    {"neg", 1, unary<at::neg>, {}},
    {"square", 1, unary<at::square>, {}},
    {"reciprocal", 1, unary<at::reciprocal>, {}},
    {"abs", 1, unary<at::abs>, {}},
    {"exp", 1, unary<at::exp>, {}},
    {"expm1", 1, unary<at::expm1>, {}},
    {"log", 1, unary<at::log>, {}},
    {"log1p", 1, unary<at::log1p>, {}},
    {"sqrt", 1, unary<at::sqrt>, {}},
    {"rsqrt", 1, unary<at::rsqrt>, {}},
    {"pow_scalar", 1, pow_scalar, {}},
    {"sin", 1, unary<at::sin>, {}},
    {"cos", 1, unary<at::cos>, {}},
    {"tanh", 1, unary<at::tanh>, {}},
    {"sigmoid", 1, unary<at::sigmoid>, {}},
    {"softplus", 1, softplus, {}},
    {"silu", 1, unary<at::silu>, {}},
    {"relu", 1, unary<at::relu>, {}},
    {"leaky_relu", 1, leaky_relu, {}},
    {"elu", 1, elu, {}},
    {"gelu", 1, gelu, {}},
    {"hardswish", 1, unary<at::hardswish>, {}},
    {"ste_round", 1, nullptr, kNoStraightThrough},
    {"ste_hardtanh_gate", 1, nullptr, kNoStraightThrough},
    {"add", 2, [](const gp_op_call&, const Tensors& in) { return at::add(in[0], in[1]); }, {}},
    {"sub", 2, [](const gp_op_call&, const Tensors& in) { return at::sub(in[0], in[1]); }, {}},
    {"mul", 2, binary<at::mul>, {}},
    {"div", 2, binary<at::div>, {}},
    {"pow", 2, binary<at::pow>, {}},
    {"maximum", 2, binary<at::maximum>, {}},
    {"minimum", 2, binary<at::minimum>, {}},
};

}  // namespace

std::span<const OpRow> elementwise_rows() { return elementwise_table; }

}  // namespace gp_libtorch
