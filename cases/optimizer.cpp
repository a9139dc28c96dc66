// Optimizer steps at the parameter shapes 1, 7, 127 and 64x128, in f32 and f64. Parameters,
// gradients and momentum buffers are drawn from U[-1, 1]. Adam's state is drawn where a run puts
// it: zero before the first step (PyTorch's initial state), later |m| <= 0.1 and v in [0.01, 1],
// so that |m| <= sqrt(v) as for moving averages of g and g^2. No 16-bit cases: an optimizer
// keeps its parameters and state in f32 or wider (master weights), because a 16-bit parameter
// absorbs every update below half its ULP (lr 1e-3 against bf16's 2^-9 at 1) and a 16-bit v
// underflows at (1 - b2) g^2.
#include "cases/registry.hpp"

namespace gp {

namespace {

const std::vector<Shape>& parameter_shapes() {
  static const std::vector<Shape> shapes = {Shape{1}, Shape{7}, Shape{127}, Shape{64, 128}};
  return shapes;
}

void add_at_every_shape(CaseList& list, OpKind op, const OpAttrs& a, const std::vector<Domain>& state) {
  for (const Shape& s : parameter_shapes()) {
    CaseDecl c;
    c.op = op;
    c.attrs = a;
    c.inputs = {{s, Domain::range(-1, 1)}, {s, Domain::range(-1, 1)}};
    for (const Domain& d : state) c.inputs.push_back({s, d});
    list.add(std::move(c));
  }
}

void declare_sgd(CaseList& list) {
  OpAttrs a;
  a.lr = 0.05;
  const Domain buffer = Domain::range(-1, 1);  // unread on the first step: a kernel that reads it fails
  for (double wd : {0.0, 1e-2}) {
    a.weight_decay = wd;
    a.momentum = 0;
    a.nesterov = a.first = false;
    add_at_every_shape(list, OpKind::sgd_step, a, {buffer});
    a.momentum = 0.9;
    for (bool nesterov : {false, true})
      for (bool first : {true, false}) {
        a.nesterov = nesterov;
        a.first = first;
        add_at_every_shape(list, OpKind::sgd_step, a, {buffer});
      }
  }
  a.nesterov = a.first = false;
  a.dampening = 0.1;
  add_at_every_shape(list, OpKind::sgd_step, a, {buffer});
}

void declare_adamw(CaseList& list) {
  OpAttrs a;
  a.lr = 1e-3;
  a.beta1 = 0.9;
  a.beta2 = 0.999;
  a.eps = 1e-8;
  for (std::int64_t t : {1, 2, 10, 1000})
    for (double wd : {0.0, 0.01}) {
      a.t = t;
      a.weight_decay = wd;
      if (t == 1)
        add_at_every_shape(list, OpKind::adamw_step, a, {Domain::constant(0), Domain::constant(0)});
      else
        add_at_every_shape(list, OpKind::adamw_step, a, {Domain::range(-0.1, 0.1), Domain::range(0.01, 1)});
    }
}

}  // namespace

void declare_optimizer_cases(CaseList& list) {
  declare_sgd(list);
  declare_adamw(list);
}

}  // namespace gp
