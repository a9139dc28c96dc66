// Reductions, rowwise ops, linear algebra, layout and losses as a PyTorch user writes them, each
// on the catalog's axis and attributes (core/README.md gives the contract).
#include "torch_ops.hpp"

namespace gp_libtorch {
namespace {

using at::Tensor;

Tensor sum(const gp_op_call& c, const Tensors& in) { return at::sum(in[0], {axis_of(c)}, c.attrs.keepdim != 0); }
Tensor mean(const gp_op_call& c, const Tensors& in) { return at::mean(in[0], {axis_of(c)}, c.attrs.keepdim != 0); }
// torch.amax, the reduction; torch.max(x, dim) gives the same values and sends its gradient to
// the same (unique) maximum.
Tensor max(const gp_op_call& c, const Tensors& in) { return at::amax(in[0], {axis_of(c)}, c.attrs.keepdim != 0); }
Tensor logsumexp(const gp_op_call& c, const Tensors& in) {
  return at::logsumexp(in[0], {axis_of(c)}, c.attrs.keepdim != 0);
}
Tensor variance(const gp_op_call& c, const Tensors& in) {
  return at::var(in[0], at::IntArrayRef{axis_of(c)}, c10::optional<int64_t>(c.attrs.correction), c.attrs.keepdim != 0);
}

Tensor softmax(const gp_op_call& c, const Tensors& in) { return at::softmax(in[0], axis_of(c)); }
Tensor log_softmax(const gp_op_call& c, const Tensors& in) { return at::log_softmax(in[0], axis_of(c)); }
Tensor layer_norm(const gp_op_call& c, const Tensors& in) {
  return at::layer_norm(in[0], {in[0].size(-1)}, in[1], in[2], c.attrs.eps);
}
// F.gumbel_softmax(logits, tau, hard=False) draws its own noise g and returns
// softmax((logits + g) / tau); with the case's noise given, these are its steps.
Tensor gumbel_softmax(const gp_op_call& c, const Tensors& in) {
  return at::softmax(at::div(at::add(in[0], in[1]), c.attrs.tau), -1);
}

Tensor matmul(const gp_op_call&, const Tensors& in) { return at::matmul(in[0], in[1]); }
Tensor linear(const gp_op_call&, const Tensors& in) { return at::linear(in[0], in[1], in[2]); }
Tensor gru_cell(const gp_op_call&, const Tensors& in) { return at::gru_cell(in[0], in[1], in[2], in[3], in[4], in[5]); }

Tensor transpose(const gp_op_call&, const Tensors& in) { return at::transpose(in[0], -2, -1); }
Tensor reshape(const gp_op_call& c, const Tensors& in) {
  return at::reshape(in[0], at::IntArrayRef(c.attrs.reshape, static_cast<size_t>(c.attrs.reshape_rank)));
}
Tensor concat(const gp_op_call& c, const Tensors& in) { return at::cat(in, axis_of(c)); }
Tensor slice(const gp_op_call& c, const Tensors& in) {
  return in[0].slice(axis_of(c), c.attrs.slice_start, c.attrs.slice_stop, c.attrs.slice_step);
}

Tensor mse_loss(const gp_op_call& c, const Tensors& in) {
  return at::mse_loss(in[0], in[1], c.attrs.loss_reduction == 1 ? at::Reduction::Sum : at::Reduction::Mean);
}
// The targets arrive as i32 class indices; PyTorch takes them as int64 (a conversion, no arithmetic).
Tensor cross_entropy(const gp_op_call&, const Tensors& in) {
  return at::cross_entropy_loss(in[0], in[1].to(at::kLong));
}
Tensor bce_with_logits(const gp_op_call&, const Tensors& in) {
  return at::binary_cross_entropy_with_logits(in[0], in[1], {}, {}, at::Reduction::Mean);
}

const OpRow structured_table[] = {
    {"sum", 1, sum, {}},
    {"mean", 1, mean, {}},
    {"max", 1, max, {}},
    {"logsumexp", 1, logsumexp, {}},
    {"variance", 1, variance, {}},
    {"softmax", 1, softmax, {}},
    {"log_softmax", 1, log_softmax, {}},
    {"layer_norm", 3, layer_norm, {}},
    {"rms_norm", 2, nullptr, "PyTorch 1.13 has no RMS normalisation (torch.nn.functional.rms_norm came with 2.4)"},
    {"gumbel_softmax", 2, gumbel_softmax, {}},
    {"bspline_basis", 1, nullptr, "PyTorch has no B-spline basis op"},
    {"matmul", 2, matmul, {}},
    {"linear", 3, linear, {}},
    {"tt_embedding", 4, nullptr, "PyTorch has no tensor-train embedding"},
    {"log_matmul_exp", 2, nullptr, "PyTorch has no log-space matrix product"},
    {"gru_cell", 6, gru_cell, {}},
    {"transpose", 1, transpose, {}},
    {"reshape", 1, reshape, {}},
    {"concat", kTwoOrMore, concat, {}},
    {"slice", 1, slice, {}},
    {"mse_loss", 2, mse_loss, {}},
    {"cross_entropy", 2, cross_entropy, {}},
    {"bce_with_logits", 2, bce_with_logits, {}},
};

}  // namespace

std::span<const OpRow> structured_rows() { return structured_table; }

}  // namespace gp_libtorch
