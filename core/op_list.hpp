// The op catalog as one declaration list. Every table (enum, names, arity, gradient masks,
// attribute sets) is generated from it; adding an op means adding one line here plus its
// reference, kernels and cases. Semantics of every op are written in core/README.md.
//
// X(name, family, inputs, differentiable-input mask, attributes used)
//   inputs: number of tensor inputs; -1 = variadic (concat: 2 or more)
//   mask:   bit k set when input k receives a gradient
#pragma once

#define GP_OP_LIST(X)                                                        \
  /* unary elementwise */                                                    \
  X(neg, unary, 1, 0x1, kAttrNone)                                           \
  X(square, unary, 1, 0x1, kAttrNone)                                        \
  X(reciprocal, unary, 1, 0x1, kAttrNone)                                    \
  X(abs, unary, 1, 0x1, kAttrNone)                                           \
  X(exp, unary, 1, 0x1, kAttrNone)                                           \
  X(expm1, unary, 1, 0x1, kAttrNone)                                         \
  X(log, unary, 1, 0x1, kAttrNone)                                           \
  X(log1p, unary, 1, 0x1, kAttrNone)                                         \
  X(sqrt, unary, 1, 0x1, kAttrNone)                                          \
  X(rsqrt, unary, 1, 0x1, kAttrNone)                                         \
  X(pow_scalar, unary, 1, 0x1, kAttrP)                                       \
  X(sin, unary, 1, 0x1, kAttrNone)                                           \
  X(cos, unary, 1, 0x1, kAttrNone)                                           \
  X(tanh, unary, 1, 0x1, kAttrNone)                                          \
  X(sigmoid, unary, 1, 0x1, kAttrNone)                                       \
  X(softplus, unary, 1, 0x1, kAttrNone)                                      \
  X(silu, unary, 1, 0x1, kAttrNone)                                          \
  X(relu, unary, 1, 0x1, kAttrNone)                                          \
  X(leaky_relu, unary, 1, 0x1, kAttrAlpha)                                   \
  X(elu, unary, 1, 0x1, kAttrAlpha)                                          \
  X(gelu, unary, 1, 0x1, kAttrGelu)                                          \
  /* binary elementwise with broadcasting */                                 \
  X(add, binary, 2, 0x3, kAttrNone)                                          \
  X(sub, binary, 2, 0x3, kAttrNone)                                          \
  X(mul, binary, 2, 0x3, kAttrNone)                                          \
  X(div, binary, 2, 0x3, kAttrNone)                                          \
  X(pow, binary, 2, 0x3, kAttrNone)                                          \
  X(maximum, binary, 2, 0x3, kAttrNone)                                      \
  X(minimum, binary, 2, 0x3, kAttrNone)                                      \
  /* reductions over one axis */                                             \
  X(sum, reduction, 1, 0x1, kAttrAxis | kAttrKeepdim)                        \
  X(mean, reduction, 1, 0x1, kAttrAxis | kAttrKeepdim)                       \
  X(max, reduction, 1, 0x1, kAttrAxis | kAttrKeepdim)                        \
  X(logsumexp, reduction, 1, 0x1, kAttrAxis | kAttrKeepdim)                  \
  X(variance, reduction, 1, 0x1, kAttrAxis | kAttrKeepdim | kAttrCorrection) \
  /* row-wise: output has the input's shape */                               \
  X(softmax, rowwise, 1, 0x1, kAttrAxis)                                     \
  X(log_softmax, rowwise, 1, 0x1, kAttrAxis)                                 \
  X(layer_norm, rowwise, 3, 0x7, kAttrEps)                                   \
  /* linear algebra and layout */                                            \
  X(matmul, linalg, 2, 0x3, kAttrNone)                                       \
  X(linear, linalg, 3, 0x7, kAttrNone)                                       \
  X(transpose, layout, 1, 0x1, kAttrNone)                                    \
  X(reshape, layout, 1, 0x1, kAttrShape)                                     \
  X(concat, layout, -1, 0xFF, kAttrAxis)                                     \
  X(slice, layout, 1, 0x1, kAttrAxis | kAttrSlice)                           \
  /* losses: scalar output */                                                \
  X(mse_loss, loss, 2, 0x3, kAttrReduction)                                  \
  X(cross_entropy, loss, 2, 0x1, kAttrNone)                                  \
  X(bce_with_logits, loss, 2, 0x3, kAttrNone)                                \
  /* ops whose gradient is chosen, not derived */                            \
  X(ste_round, chosen, 1, 0x1, kAttrNone)                                    \
  X(ste_hardtanh_gate, chosen, 1, 0x1, kAttrNone)                            \
  X(gumbel_softmax, chosen, 2, 0x1, kAttrTau)
