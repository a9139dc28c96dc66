// The elementwise op lists, as X-macros read by both sides: the kernels instantiate one kernel
// per op from them (or, with GP_GENERIC_ELEMENTWISE, the switch of the generic kernels), and the
// host turns an op name into the generic kernels' `op` argument with the same lists
// (context.cpp). Embedded after common.cl; plain #defines, valid OpenCL C and C++.
#ifndef GP_OCL_OP_LISTS_H
#define GP_OCL_OP_LISTS_H

#define GP_UNARY_OPS(X)                                                                         \
  X(neg) X(square) X(reciprocal) X(abs) X(exp) X(expm1) X(log) X(log1p) X(sqrt) X(rsqrt)        \
  X(pow_scalar) X(sin) X(cos) X(tanh) X(sigmoid) X(softplus) X(silu) X(relu) X(leaky_relu)      \
  X(elu) X(gelu_erf) X(gelu_tanh) X(ste_round) X(ste_hardtanh_gate)

#define GP_BINARY_OPS(X) X(add) X(sub) X(mul) X(div) X(pow) X(maximum) X(minimum)

#endif
