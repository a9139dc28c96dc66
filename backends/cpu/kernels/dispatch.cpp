// Routes a call to its family's kernels. ste_round and ste_hardtanh_gate are elementwise with
// chosen gradients and share the elementwise table; gumbel_softmax sits with the losses.
#include "backends/cpu/kernels/kernel_args.hpp"

namespace gp::cpu {

namespace {

bool is_straight_through(OpKind k) { return k == OpKind::ste_round || k == OpKind::ste_hardtanh_gate; }

}  // namespace

template <typename T>
void dispatch_forward(const ForwardArgs<T>& a) {
  switch (op_family(a.call.kind)) {
    case OpFamily::unary:
      return elementwise_forward(a);
    case OpFamily::binary:
      return binary_forward(a);
    case OpFamily::reduction:
      return reduction_forward(a);
    case OpFamily::rowwise:
      return rowwise_forward(a);
    case OpFamily::linalg:
    case OpFamily::layout:
      return linalg_layout_forward(a);
    case OpFamily::loss:
      return loss_chosen_forward(a);
    case OpFamily::chosen:
      return is_straight_through(a.call.kind) ? elementwise_forward(a) : loss_chosen_forward(a);
  }
  fail(a.call, "has no CPU kernel");
}

template <typename T>
void dispatch_backward(const BackwardArgs<T>& a) {
  switch (op_family(a.call.kind)) {
    case OpFamily::unary:
      return elementwise_backward(a);
    case OpFamily::binary:
      return binary_backward(a);
    case OpFamily::reduction:
      return reduction_backward(a);
    case OpFamily::rowwise:
      return rowwise_backward(a);
    case OpFamily::linalg:
    case OpFamily::layout:
      return linalg_layout_backward(a);
    case OpFamily::loss:
      return loss_chosen_backward(a);
    case OpFamily::chosen:
      return is_straight_through(a.call.kind) ? elementwise_backward(a) : loss_chosen_backward(a);
  }
  fail(a.call, "has no CPU kernel");
}

GP_CPU_INSTANTIATE(dispatch_forward, dispatch_backward)

}  // namespace gp::cpu
