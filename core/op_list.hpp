// The op catalog: one declaration per op. Everything else about an op's identity is generated
// from it: the OpKind enum and its name, family, arity and gradient tables (core/op.cpp), the op
// codes and per-family op lists the OpenCL kernels and Vulkan shaders switch on (generated at
// build time into gp_op_codes.h by core/tools/op_codes.cpp), ctest labels, report families. The
// semantics of every op are written in core/README.md; adding one is docs/adding-an-op.md.
//
// X(name, family, shape, inputs, mask, attrs, gradient, kinks...)
//   family:   the kernel shape: unary, binary (broadcasting), reduction (one axis), rowwise (a
//             row in, a row out), linalg, layout (values moved, exact), loss (scalar out),
//             optimizer (one training step: new parameters and state stacked in one output)
//   shape:    how the output shape follows from the inputs (ShapeRule in core/op.hpp; `custom`
//             ops have their rule in core/op.cpp)
//   inputs:   number of tensor inputs; -1 = variadic (concat: 2 or more)
//   mask:     bit k set when input k receives a gradient; 0 for a forward-only op (optimizer
//             steps: reports say "forward only" where other ops have backward checks)
//   gradient: exact (the derivative) or surrogate (declared by the op; straight-through)
//   kinks:    points of input 0 where a unary op is not differentiable; sampled inputs keep away
//             from them (Domain::away_from_kinks). bspline_basis has none here: its knots
//             follow from its attributes, and its cases list them (cases/rowwise.cpp)
#pragma once

#define GP_OP_LIST(X)                                                                       \
  X(neg, unary, same, 1, 0x1, kAttrNone, exact)                                             \
  X(square, unary, same, 1, 0x1, kAttrNone, exact)                                          \
  X(reciprocal, unary, same, 1, 0x1, kAttrNone, exact)                                      \
  X(abs, unary, same, 1, 0x1, kAttrNone, exact, 0)                                          \
  X(exp, unary, same, 1, 0x1, kAttrNone, exact)                                             \
  X(expm1, unary, same, 1, 0x1, kAttrNone, exact)                                           \
  X(log, unary, same, 1, 0x1, kAttrNone, exact)                                             \
  X(log1p, unary, same, 1, 0x1, kAttrNone, exact)                                           \
  X(sqrt, unary, same, 1, 0x1, kAttrNone, exact)                                            \
  X(rsqrt, unary, same, 1, 0x1, kAttrNone, exact)                                           \
  X(pow_scalar, unary, same, 1, 0x1, kAttrP, exact)                                         \
  X(sin, unary, same, 1, 0x1, kAttrNone, exact)                                             \
  X(cos, unary, same, 1, 0x1, kAttrNone, exact)                                             \
  X(tanh, unary, same, 1, 0x1, kAttrNone, exact)                                            \
  X(sigmoid, unary, same, 1, 0x1, kAttrNone, exact)                                         \
  X(softplus, unary, same, 1, 0x1, kAttrNone, exact)                                        \
  X(silu, unary, same, 1, 0x1, kAttrNone, exact)                                            \
  X(relu, unary, same, 1, 0x1, kAttrNone, exact, 0)                                         \
  X(leaky_relu, unary, same, 1, 0x1, kAttrAlpha, exact, 0)                                  \
  X(elu, unary, same, 1, 0x1, kAttrAlpha, exact, 0)                                         \
  X(gelu, unary, same, 1, 0x1, kAttrGelu, exact)                                            \
  X(hardswish, unary, same, 1, 0x1, kAttrNone, exact, -3, 3)                                \
  X(add, binary, broadcast, 2, 0x3, kAttrNone, exact)                                       \
  X(sub, binary, broadcast, 2, 0x3, kAttrNone, exact)                                       \
  X(mul, binary, broadcast, 2, 0x3, kAttrNone, exact)                                       \
  X(div, binary, broadcast, 2, 0x3, kAttrNone, exact)                                       \
  X(pow, binary, broadcast, 2, 0x3, kAttrNone, exact)                                       \
  X(maximum, binary, broadcast, 2, 0x3, kAttrNone, exact)                                   \
  X(minimum, binary, broadcast, 2, 0x3, kAttrNone, exact)                                   \
  X(sum, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim, exact)                        \
  X(mean, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim, exact)                       \
  X(max, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim, exact)                        \
  X(logsumexp, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim, exact)                  \
  X(variance, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim | kAttrCorrection, exact) \
  X(softmax, rowwise, same_axis, 1, 0x1, kAttrAxis | kAttrStaged, exact)                    \
  X(log_softmax, rowwise, same_axis, 1, 0x1, kAttrAxis | kAttrStaged, exact)                \
  X(layer_norm, rowwise, row_params, 3, 0x7, kAttrEps, exact)                               \
  X(rms_norm, rowwise, row_params, 2, 0x3, kAttrEps, exact)                                 \
  X(matmul, linalg, custom, 2, 0x3, kAttrNone, exact)                                       \
  X(linear, linalg, custom, 3, 0x7, kAttrNone, exact)                                       \
  X(transpose, layout, custom, 1, 0x1, kAttrNone, exact)                                    \
  X(reshape, layout, custom, 1, 0x1, kAttrShape, exact)                                     \
  X(concat, layout, custom, -1, 0xFF, kAttrAxis, exact)                                     \
  X(slice, layout, custom, 1, 0x1, kAttrAxis | kAttrSlice, exact)                           \
  X(mse_loss, loss, pair_to_scalar, 2, 0x3, kAttrReduction, exact)                          \
  X(cross_entropy, loss, custom, 2, 0x1, kAttrNone, exact)                                  \
  X(bce_with_logits, loss, pair_to_scalar, 2, 0x3, kAttrNone, exact)                        \
  /* declared after the families they belong to, so that op ids keep their order */         \
  X(ste_round, unary, same, 1, 0x1, kAttrNone, surrogate)                                   \
  X(ste_hardtanh_gate, unary, same, 1, 0x1, kAttrNone, surrogate, -1, 0, 1)                 \
  X(gumbel_softmax, rowwise, same_pair, 2, 0x1, kAttrTau, exact)                            \
  X(bspline_basis, rowwise, custom, 1, 0x1, kAttrOrder | kAttrGrid, exact)                  \
  X(tt_embedding, linalg, custom, 4, 0xE, kAttrNone, exact)                                 \
  X(log_matmul_exp, linalg, custom, 2, 0x3, kAttrNone, exact)                               \
  X(sgd_step, optimizer, custom, 3, 0x0, kAttrSgd, exact)                                   \
  X(adamw_step, optimizer, custom, 4, 0x0, kAttrAdamw, exact)                               \
  X(gru_cell, linalg, custom, 6, 0x3F, kAttrNone, exact)
