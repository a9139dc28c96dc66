// sgd_step and adamw_step as one step() of torch::optim::SGD and torch::optim::AdamW on one
// parameter, the catalog's state put into the optimizer's own state first (the key
// torch::optim uses is the parameter's TensorImpl address). The catalog's rows are those of
// PyTorch's optimizers with maximize and amsgrad off (core/README.md).
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <string>

#include "torch_ops.hpp"

namespace gp_libtorch {
namespace {

using at::Tensor;

std::string state_key(const Tensor& param) { return c10::guts::to_string(param.unsafeGetTensorImpl()); }

// A parameter the optimizer may update in place: a copy of the input, flattened, with its gradient.
Tensor parameter(const Tensors& in) {
  Tensor p = in[0].reshape({-1}).clone();
  p.mutable_grad() = in[1].reshape({-1}).clone();
  return p;
}

Tensor sgd_step(const gp_op_call& c, const Tensors& in) {
  const double momentum = text_attribute(c, "momentum");
  Tensor p = parameter(in);
  torch::optim::SGD sgd({p}, torch::optim::SGDOptions(text_attribute(c, "lr"))
                                 .momentum(momentum)
                                 .dampening(text_attribute(c, "dampening"))
                                 .nesterov(text_attribute(c, "nesterov") != 0)
                                 .weight_decay(text_attribute(c, "wd")));
  // PyTorch starts the momentum buffer from the gradient on its first step: no state yet.
  if (momentum != 0 && text_attribute(c, "first") == 0) {
    auto state = std::make_unique<torch::optim::SGDParamState>();
    state->momentum_buffer(in[2].reshape({-1}).clone());
    sgd.state()[state_key(p)] = std::move(state);
  }
  sgd.step();
  Tensor buffer = in[2].reshape({-1});
  if (momentum != 0)
    buffer = static_cast<torch::optim::SGDParamState&>(*sgd.state().at(state_key(p))).momentum_buffer();
  return at::stack({p.detach(), buffer});
}

Tensor adamw_step(const gp_op_call& c, const Tensors& in) {
  Tensor p = parameter(in);
  torch::optim::AdamW adamw({p}, torch::optim::AdamWOptions(text_attribute(c, "lr"))
                                     .betas({text_attribute(c, "beta1"), text_attribute(c, "beta2")})
                                     .eps(text_attribute(c, "eps"))
                                     .weight_decay(text_attribute(c, "wd")));
  auto state = std::make_unique<torch::optim::AdamWParamState>();
  state->step(static_cast<int64_t>(text_attribute(c, "step")) - 1);  // step() counts this one
  state->exp_avg(in[2].reshape({-1}).clone());
  state->exp_avg_sq(in[3].reshape({-1}).clone());
  auto& moments = *state;
  adamw.state()[state_key(p)] = std::move(state);
  adamw.step();
  return at::stack({p.detach(), moments.exp_avg(), moments.exp_avg_sq()});
}

const OpRow optimizer_table[] = {
    {"sgd_step", 3, sgd_step, {}, /*forward_only=*/true},
    {"adamw_step", 4, adamw_step, {}, /*forward_only=*/true},
};

}  // namespace

std::span<const OpRow> optimizer_rows() { return optimizer_table; }

}  // namespace gp_libtorch
