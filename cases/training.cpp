// Training runs (../docs/training.md): models of cases/models.cpp trained for a few steps on a
// teacher task, with PyTorch's SGD and AdamW as the catalog's optimizer steps. Ids:
// `train(model=mlp,opt=adamw,steps=20,batch=16,dtype=f32)`.
#include "cases/graph_builder.hpp"

namespace gp {

namespace {

TrainingDecl sgd(double lr, double momentum, bool nesterov, int steps) {
  TrainingDecl t;
  t.optimizer = OpKind::sgd_step;
  t.attrs.lr = lr;
  t.attrs.momentum = momentum;
  t.attrs.nesterov = nesterov;
  t.attrs.weight_decay = 1e-2;
  t.steps = steps;
  return t;
}

TrainingDecl adamw(double lr, int steps) {
  TrainingDecl t;
  t.optimizer = OpKind::adamw_step;
  t.attrs.lr = lr;
  t.attrs.eps = 1e-8;
  t.attrs.weight_decay = 1e-2;
  t.steps = steps;
  return t;
}

// The model's declaration renamed as a training run of it; `micro` is the model at batch /
// `micro_batches`.
// The leaf a training run's loss compares with, and whether it holds class indices.
struct Target {
  std::string leaf;
  bool classes = false;
};

CompositeDecl trained(CompositeDecl model, CompositeDecl micro, int micro_batches, TrainingDecl t, const Target& target,
                      const std::string& batch) {
  const std::string opt = t.optimizer == OpKind::adamw_step ? "adamw" : t.attrs.nesterov ? "sgd_nesterov" : "sgd";
  model.params = "model=" + model.model + ",opt=" + opt + ",steps=" + std::to_string(t.steps) + ",batch=" + batch;
  model.formulation += "; " + std::to_string(t.steps) + " steps of " + std::string(op_name(t.optimizer)) + " (lr " +
                       std::to_string(t.attrs.lr) + ") toward a teacher of the same graph";
  model.model = "train";
  t.target = target.leaf;
  t.classes = target.classes;
  t.micro_batches = micro_batches;
  t.micro_batch = std::make_shared<const CompositeDecl>(std::move(micro));
  model.training = t;
  return model;
}

}  // namespace

void declare_training(std::vector<CompositeDecl>& out) {
  // Batches of 16 in 4 micro-batches of 4; the GRU's 8 in 2 of 4 (each micro-batch is a graph of
  // 180 nodes, and its bound runs 33 of them).
  const CompositeDecl mlp = mlp_model(3, 16, OpKind::tanh), mlp_micro = mlp_model(3, 4, OpKind::tanh);
  out.push_back(trained(mlp, mlp_micro, 4, adamw(1e-2, 20), {"targets", true}, "16"));
  out.push_back(trained(mlp, mlp_micro, 4, sgd(0.5, 0.9, true, 20), {"targets", true}, "16"));
  out.push_back(
      trained(kan_model({8, 4}, 3, 16), kan_model({8, 4}, 3, 4), 4, adamw(1e-2, 20), {"target", false}, "16"));
  // Five steps only (each is a GRU of 180 nodes, and the bound runs 33 of them): the loss falls
  // by about 1.9 there.
  CompositeDecl gru =
      trained(gru_model(10, 8, 16, 32), gru_model(10, 4, 16, 32), 2, sgd(0.5, 0.9, false, 5), {"target", false}, "8");
  gru.training->convergence = 1.5;
  out.push_back(gru);
}

}  // namespace gp
