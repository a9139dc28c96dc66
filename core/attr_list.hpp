// The catalog's attributes: one row per attribute, in the order a case id spells them. Generated
// from it: the AttrSet bits the op catalog's `attrs` column names (core/op.hpp), their spelling in
// ids, reports and the plugin ABI's `attrs_text` (attrs_to_string, core/attrs.cpp), and the keys
// `gradparity list` shows per op. The values live in OpAttrs (core/op.hpp), whose comments say
// which ops read them; the plugin ABI's C struct mirrors those fields (include/gradparity/plugin.h).
//
// X(name, keys, spell)
//   name:  kAttr<name> is the attribute's bit
//   keys:  the keys it spells, as `list` shows them
//   spell: how an OpAttrs `a` is written into a Spelling `s` (a comma inside a macro argument
//          must sit in parentheses)
#pragma once

#define GP_ATTR_LIST(X)                                                                              \
  X(P, "p", s.add("p", number(a.p)))                                                                 \
  X(Alpha, "alpha", s.add("alpha", number(a.alpha)))                                                 \
  X(Gelu, "approx", s.add("approx", a.gelu == GeluApprox::erf ? "erf" : "tanh"))                     \
  X(Axis, "axis", s.add("axis", whole(a.axis)))                                                      \
  /* spelled only where set: the contract's default keeps the ids it had */                          \
  X(Staged, "staged", if (a.staged == Staged::storage) s.add("staged", "storage"))                   \
  X(Keepdim, "keepdim", s.add("keepdim", whole(a.keepdim)))                                          \
  X(Correction, "correction", s.add("correction", whole(a.correction)))                              \
  X(Shape, "to", s.add("to", dims(a.shape)))                                                         \
  X(Slice, "range", s.add("range", whole(a.start) + ":" + whole(a.stop) + ":" + whole(a.step)))      \
  X(Reduction, "reduction", s.add("reduction", a.reduction == LossReduction::mean ? "mean" : "sum")) \
  X(Tau, "tau", s.add("tau", number(a.tau)))                                                         \
  X(Order, "order", s.add("order", whole(a.order)))                                                  \
  X(Grid, "grid", s.add("grid", whole(a.grid)))                                                      \
  X(Lr, "lr", s.add("lr", number(a.lr)))                                                             \
  X(Momentum, "momentum, dampening, nesterov",                                                       \
    (s.add("momentum", number(a.momentum)), s.add("dampening", number(a.dampening)),                 \
     s.add("nesterov", whole(a.nesterov))))                                                          \
  X(Betas, "beta1, beta2", (s.add("beta1", number(a.beta1)), s.add("beta2", number(a.beta2))))       \
  X(Eps, "eps", s.add("eps", number(a.eps)))                                                         \
  X(WeightDecay, "wd", s.add("wd", number(a.weight_decay)))                                          \
  /* sgd_step: the momentum buffer is fresh (the first step) */                                      \
  X(First, "first", s.add("first", whole(a.first)))                                                  \
  /* adamw_step: the step counter t >= 1 */                                                          \
  X(Step, "step", s.add("step", whole(a.t)))
