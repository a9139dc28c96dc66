// Optimizer steps (kernels/optimizer.cl): one launch over the flattened parameter. Forward only.
#include "backends/opencl/detail.hpp"

namespace gp::opencl {

void forward_optimizer(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  const OptimizerScalars s = optimizer_scalars(call);
  const std::int64_t n = call.input_shapes[0].numel();
  if (call.kind == OpKind::sgd_step) {
    const int flags =
        (s.weight_decay != 0 ? 1 : 0) | (s.momentum != 0 ? 2 : 0) | (s.nesterov ? 4 : 0) | (s.first ? 8 : 0);
    q.run_elementwise("sgd_step_fwd", n, as_cl(in[0]), as_cl(in[1]), as_cl(in[2]), out, n, RealArg{s.lr},
                      RealArg{s.weight_decay}, RealArg{s.momentum}, RealArg{s.one_minus_dampening}, flags);
    return;
  }
  q.run_elementwise("adamw_step_fwd", n, as_cl(in[0]), as_cl(in[1]), as_cl(in[2]), as_cl(in[3]), out, n, RealArg{s.lr},
                    RealArg{s.decay}, RealArg{s.beta1}, RealArg{s.one_minus_beta1}, RealArg{s.beta2},
                    RealArg{s.one_minus_beta2}, RealArg{s.eps}, RealArg{s.t});
}

void backward_optimizer(const OpCall& call, Grads grads) {
  for (DeviceBuffer* g : grads)
    if (g) throw Error("opencl: " + std::string(op_name(call.kind)) + " is forward only [case " + call.case_id + "]");
}

}  // namespace gp::opencl
