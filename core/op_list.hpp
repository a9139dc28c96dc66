// The op catalog: one declaration per op. Everything else about an op's identity is generated
// from it: the OpKind enum and its name, family, arity and gradient tables (core/op.cpp), the op
// codes and per-family op lists the OpenCL kernels and Vulkan shaders switch on (generated at
// build time into gp_op_codes.h by core/tools/op_codes.cpp), ctest labels, report families. The
// semantics of every op are written in core/README.md; adding one is docs/adding-an-op.md.
//
// X(name, family, shape, inputs, mask, attrs, gradient, reads, kinks...)
//   family:   the kernel shape: unary, binary (broadcasting), reduction (one axis), rowwise (a
//             row in, a row out), linalg, layout (values moved, exact), loss (scalar out),
//             optimizer (one training step: new parameters and state stacked in one output)
//   shape:    how the output shape follows from the inputs (ShapeRule in core/op.hpp; `custom`
//             ops have their rule in core/op.cpp)
//   inputs:   number of tensor inputs; -1 = variadic (concat: 2 or more)
//   mask:     bit k set when input k receives a gradient; 0 for a forward-only op (optimizer
//             steps: reports say "forward only" where other ops have backward checks)
//   attrs:    the attributes the op uses (core/attr_list.hpp)
//   gradient: the VJP's contract (GradientKind in core/op.hpp): exact (the derivative); sparse
//             (the derivative, zero almost everywhere by construction: a comparison does not
//             mistrust a mostly-zero reference); identity_st / hardtanh_st (straight-through: a
//             surrogate the op declares, core/op.cpp says which, checked instead of finite
//             differences)
//   reads:    what one output element and one gradient element read (Reads in core/op.hpp),
//             from which the MPFR oracle cuts its sub-problems: elements (the same elements of
//             every input, broadcasting aside), rows (one whole row along the op's axis), matrix
//             (a row of the left operand and a column of the right), whole (any element may read
//             every input element, or a gradient sums over every row)
//   kinks:    points of input 0 where a unary op is not differentiable; sampled inputs keep away
//             from them (Domain::away_from_kinks). bspline_basis has none here: its knots
//             follow from its attributes, and its cases list them (cases/rowwise.cpp)
#pragma once

#define GP_OP_LIST(X)                                                                             \
  X(neg, unary, same, 1, 0x1, kAttrNone, exact, elements)                                         \
  X(square, unary, same, 1, 0x1, kAttrNone, exact, elements)                                      \
  X(reciprocal, unary, same, 1, 0x1, kAttrNone, exact, elements)                                  \
  X(abs, unary, same, 1, 0x1, kAttrNone, exact, elements, 0)                                      \
  X(exp, unary, same, 1, 0x1, kAttrNone, exact, elements)                                         \
  X(expm1, unary, same, 1, 0x1, kAttrNone, exact, elements)                                       \
  X(log, unary, same, 1, 0x1, kAttrNone, exact, elements)                                         \
  X(log1p, unary, same, 1, 0x1, kAttrNone, exact, elements)                                       \
  X(sqrt, unary, same, 1, 0x1, kAttrNone, exact, elements)                                        \
  X(rsqrt, unary, same, 1, 0x1, kAttrNone, exact, elements)                                       \
  X(pow_scalar, unary, same, 1, 0x1, kAttrP, exact, elements)                                     \
  X(sin, unary, same, 1, 0x1, kAttrNone, exact, elements)                                         \
  X(cos, unary, same, 1, 0x1, kAttrNone, exact, elements)                                         \
  X(tanh, unary, same, 1, 0x1, kAttrNone, exact, elements)                                        \
  X(sigmoid, unary, same, 1, 0x1, kAttrNone, exact, elements)                                     \
  X(softplus, unary, same, 1, 0x1, kAttrNone, exact, elements)                                    \
  X(silu, unary, same, 1, 0x1, kAttrNone, exact, elements)                                        \
  X(relu, unary, same, 1, 0x1, kAttrNone, exact, elements, 0)                                     \
  X(leaky_relu, unary, same, 1, 0x1, kAttrAlpha, exact, elements, 0)                              \
  X(elu, unary, same, 1, 0x1, kAttrAlpha, exact, elements, 0)                                     \
  X(gelu, unary, same, 1, 0x1, kAttrGelu, exact, elements)                                        \
  X(hardswish, unary, same, 1, 0x1, kAttrNone, exact, elements, -3, 3)                            \
  X(add, binary, broadcast, 2, 0x3, kAttrNone, exact, elements)                                   \
  X(sub, binary, broadcast, 2, 0x3, kAttrNone, exact, elements)                                   \
  X(mul, binary, broadcast, 2, 0x3, kAttrNone, exact, elements)                                   \
  X(div, binary, broadcast, 2, 0x3, kAttrNone, exact, elements)                                   \
  X(pow, binary, broadcast, 2, 0x3, kAttrNone, exact, elements)                                   \
  X(maximum, binary, broadcast, 2, 0x3, kAttrNone, exact, elements)                               \
  X(minimum, binary, broadcast, 2, 0x3, kAttrNone, exact, elements)                               \
  X(sum, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim, exact, rows)                        \
  X(mean, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim, exact, rows)                       \
  X(max, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim, sparse, rows)                       \
  X(logsumexp, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim, exact, rows)                  \
  X(variance, reduction, reduce, 1, 0x1, kAttrAxis | kAttrKeepdim | kAttrCorrection, exact, rows) \
  X(softmax, rowwise, same_axis, 1, 0x1, kAttrAxis | kAttrStaged, exact, rows)                    \
  X(log_softmax, rowwise, same_axis, 1, 0x1, kAttrAxis | kAttrStaged, exact, rows)                \
  X(layer_norm, rowwise, row_params, 3, 0x7, kAttrEps, exact, whole)                              \
  X(rms_norm, rowwise, row_params, 2, 0x3, kAttrEps, exact, whole)                                \
  X(matmul, linalg, custom, 2, 0x3, kAttrNone, exact, matrix)                                     \
  X(linear, linalg, custom, 3, 0x7, kAttrNone, exact, matrix)                                     \
  X(transpose, layout, custom, 1, 0x1, kAttrNone, exact, whole)                                   \
  X(reshape, layout, custom, 1, 0x1, kAttrShape, exact, whole)                                    \
  X(concat, layout, custom, -1, 0xFF, kAttrAxis, exact, whole)                                    \
  X(slice, layout, custom, 1, 0x1, kAttrAxis | kAttrSlice, sparse, whole)                         \
  X(mse_loss, loss, pair_to_scalar, 2, 0x3, kAttrReduction, exact, whole)                         \
  X(cross_entropy, loss, custom, 2, 0x1, kAttrNone, exact, whole)                                 \
  X(bce_with_logits, loss, pair_to_scalar, 2, 0x3, kAttrNone, exact, whole)                       \
  /* declared after the families they belong to, so that op ids keep their order */               \
  X(ste_round, unary, same, 1, 0x1, kAttrNone, identity_st, elements)                             \
  X(ste_hardtanh_gate, unary, same, 1, 0x1, kAttrNone, hardtanh_st, elements, -1, 0, 1)           \
  X(gumbel_softmax, rowwise, same_pair, 2, 0x1, kAttrTau, exact, rows)                            \
  X(bspline_basis, rowwise, custom, 1, 0x1, kAttrOrder | kAttrGrid, exact, whole)                 \
  X(tt_embedding, linalg, custom, 4, 0xE, kAttrNone, exact, whole)                                \
  X(log_matmul_exp, linalg, custom, 2, 0x3, kAttrNone, exact, matrix)                             \
  X(sgd_step, optimizer, custom, 3, 0x0, kAttrSgd, exact, whole)                                  \
  X(adamw_step, optimizer, custom, 4, 0x0, kAttrAdamw, exact, whole)                              \
  X(gru_cell, linalg, custom, 6, 0x3F, kAttrNone, exact, whole)
