// The unary family (the straight-through ops with their surrogate gradients among them). Each op is two one-line
// functions: f_NAME(x, P, A) for the value and d_NAME(x, y, g, P, A) for the VJP, where y is the
// stored forward value, g the incoming gradient, P and A the op's scalars as core's
// unary_scalars() gives them (pow_scalar's exponent; leaky_relu's and elu's alpha, gelu's
// approximation). The kernels are written once below and instantiated per op of the catalog's
// unary family by GP_UNARY_OPS (gp_op_codes.h, generated from core/op_list.hpp); the host names
// them unary_fwd_NAME / unary_bwd_NAME. With GP_GENERIC_ELEMENTWISE (CPU devices: PoCL compiles
// every kernel at its first launch, about 0.15 s each on a 2-core machine) there is instead one
// kernel per direction, unary_fwd_any / unary_bwd_any, that switches on its `op` argument, the
// op's code GP_OP_NAME.

#define GELU_K R(0.7978845608028654) /* sqrt(2/pi) */
#define GELU_C R(0.044715)

inline real f_neg(real x, real P, real A) { return -x; }
inline real d_neg(real x, real y, real g, real P, real A) { return -g; }
inline real f_square(real x, real P, real A) { return x * x; }
inline real d_square(real x, real y, real g, real P, real A) { return R(2) * x * g; }
inline real f_reciprocal(real x, real P, real A) { return R(1) / x; }
inline real d_reciprocal(real x, real y, real g, real P, real A) { return -g / (x * x); }
inline real f_abs(real x, real P, real A) { return fabs(x); }
inline real d_abs(real x, real y, real g, real P, real A) { return sign(x) * g; }
// exp up to the largest finite value: PoCL 3.1's f64 exp returns +inf from x = 709.78 on, 4,309
// spacings below DBL_MAX (hunt, docs/hunt.md). Past 709 the argument is reduced by 1023 ln 2 as
// Cody and Waite do (1023 ln2_hi is exact in 42 bits, x - 1023 ln2_hi exact by Sterbenz's lemma,
// r - 1023 ln2_lo one rounding of an r below 0.71) and exp(r) scaled by 2^1023 exactly.
#if defined(GP_STORE_F64)
inline real exp_to_the_top(real x) {
  if (!(x > 709.0)) return exp(x);
  const real r = (x - 1023.0 * 0x1.62e42feep-1) - 1023.0 * 0x1.a39ef35793c76p-33;
  return ldexp(exp(r), 1023);
}
#else
inline real exp_to_the_top(real x) { return exp(x); }
#endif

inline real f_exp(real x, real P, real A) { return exp_to_the_top(x); }
inline real d_exp(real x, real y, real g, real P, real A) { return g * exp_to_the_top(x); }
// Past 709 expm1 is exp: the 1 is below half a spacing of the result.
inline real f_expm1(real x, real P, real A) { return x > R(709) ? exp_to_the_top(x) : expm1(x); }
inline real d_expm1(real x, real y, real g, real P, real A) { return g * exp_to_the_top(x); }
inline real f_log(real x, real P, real A) { return log(x); }
inline real d_log(real x, real y, real g, real P, real A) { return g / x; }
inline real f_log1p(real x, real P, real A) { return log1p(x); }
inline real d_log1p(real x, real y, real g, real P, real A) { return g / (R(1) + x); }
inline real f_sqrt(real x, real P, real A) { return sqrt(x); }
inline real d_sqrt(real x, real y, real g, real P, real A) { return g / (R(2) * sqrt(x)); }
inline real f_rsqrt(real x, real P, real A) { return rsqrt(x); }
inline real d_rsqrt(real x, real y, real g, real P, real A) { return R(-0.5) * g * rsqrt(x) / x; }
inline real f_pow_scalar(real x, real P, real A) { return pow(x, P); }
inline real d_pow_scalar(real x, real y, real g, real P, real A) { return g * P * pow(x, P - R(1)); }
inline real f_sin(real x, real P, real A) { return sin(x); }
inline real d_sin(real x, real y, real g, real P, real A) { return g * cos(x); }
inline real f_cos(real x, real P, real A) { return cos(x); }
inline real d_cos(real x, real y, real g, real P, real A) { return -g * sin(x); }
// Past |x| = 20, tanh x rounds to +-1 in every dtype; PoCL 3.1's f32 tanh gave +-(1 - 2^-24) at
// +-inf, where C Annex F says +-1 (found by the special-values cases).
inline real f_tanh(real x, real P, real A) { return fabs(x) > R(20) ? copysign(R(1), x) : tanh(x); }
// tanh' = 1 - tanh^2 x = 4 e / (1 + e)^2 with e = exp(-2|x|): 1 - t t loses every digit once
// tanh x rounds to 1 (docs/error-model.md, "Backward formulations").
inline real d_tanh(real x, real y, real g, real P, real A) {
  real e = exp(R(-2) * fabs(x));
  return g * (R(4) * e / ((R(1) + e) * (R(1) + e)));
}
inline real f_sigmoid(real x, real P, real A) { return sigmoid_r(x); }
inline real d_sigmoid(real x, real y, real g, real P, real A) {
  real sm, s = sigmoid_pair(x, &sm);
  return g * s * sm;
}
// ln(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|).
inline real f_softplus(real x, real P, real A) { return fmax(x, R(0)) + log1p(exp(-fabs(x))); }
inline real d_softplus(real x, real y, real g, real P, real A) { return g * sigmoid_r(x); }
inline real f_silu(real x, real P, real A) { return x * sigmoid_r(x); }
// s (1 + x (1 - s)) with 1 - s = sigmoid(-x): the subtraction loses the digits of 1 - s for x >> 0.
// The slope before g: for x < -87 (f32) s is subnormal, and g s would be rounded at the subnormal
// spacing and then carried 88-fold (tests/pinned/silu_subnormal_sigmoid.json).
inline real d_silu(real x, real y, real g, real P, real A) {
  real sm, s = sigmoid_pair(x, &sm);
  return g * (s * (R(1) + x * sm));
}
inline real f_relu(real x, real P, real A) { return x > R(0) ? x : R(0); }
inline real d_relu(real x, real y, real g, real P, real A) { return x > R(0) ? g : R(0); }
inline real f_leaky_relu(real x, real P, real A) { return x > R(0) ? x : A * x; }
inline real d_leaky_relu(real x, real y, real g, real P, real A) { return x > R(0) ? g : A * g; }
inline real f_elu(real x, real P, real A) { return x > R(0) ? x : A * expm1(x); }
inline real d_elu(real x, real y, real g, real P, real A) { return x > R(0) ? g : g * A * exp(x); }
// Phi(x) = erfc(-x / sqrt 2) / 2: 1 + erf(x / sqrt 2) cancels for x << 0 (gelu(-5) would lose
// every digit in f32).
inline real gelu_erf(real x) { return R(0.5) * x * erfc(-x * R(0.7071067811865476)); }
inline real dgelu_erf(real x) {
  real cdf = R(0.5) * erfc(-x * R(0.7071067811865476));
  real pdf = R(0.3989422804014327) * exp(R(-0.5) * x * x);
  return cdf + x * pdf;
}
// (1 + tanh u) / 2 = sigmoid(2u) and (1 - tanh^2 u) / 2 = 2 sigmoid(2u) sigmoid(-2u): the
// literal forms cancel for u << 0.
inline real gelu_tanh(real x) { return x * sigmoid_r(R(2) * GELU_K * (x + GELU_C * x * x * x)); }
inline real dgelu_tanh(real x) {
  real sm, s = sigmoid_pair(R(2) * GELU_K * (x + GELU_C * x * x * x), &sm);
  real du = GELU_K * (R(1) + R(3) * GELU_C * x * x);
  return s + R(2) * x * s * sm * du;
}
// A: the approximation, 0 = erf, 1 = tanh.
inline real f_gelu(real x, real P, real A) { return A == R(0) ? gelu_erf(x) : gelu_tanh(x); }
inline real d_gelu(real x, real y, real g, real P, real A) { return g * (A == R(0) ? dgelu_erf(x) : dgelu_tanh(x)); }
// x relu6(x + 3) / 6, with kinks at -3 and 3.
inline real f_hardswish(real x, real P, real A) { return x <= R(-3) ? R(0) : x >= R(3) ? x : x * (x + R(3)) / R(6); }
inline real d_hardswish(real x, real y, real g, real P, real A) {
  return x <= R(-3) ? R(0) : x >= R(3) ? g : g * (R(2) * x + R(3)) / R(6);
}
// Surrogate gradients (straight-through): the forward is a step, the backward the declared surrogate.
inline real f_ste_round(real x, real P, real A) { return rint(x); } /* half to even */
inline real d_ste_round(real x, real y, real g, real P, real A) { return g; }
inline real f_ste_hardtanh_gate(real x, real P, real A) { return x > R(0) ? R(1) : R(0); }
inline real d_ste_hardtanh_gate(real x, real y, real g, real P, real A) { return fabs(x) < R(1) ? g : R(0); }

// GP_EW_ITEMS elements per work item (GP_EW_INDEX), all loaded before any store; indices and the
// count are 64-bit (tensors past 2^31 elements). `op` is read by the generic kernels only.
#define GP_DEFINE_UNARY(NAME)                                                                                      \
  __kernel void unary_fwd_##NAME(__global const store_t* x, __global store_t* y, long n, real P, real A, int op) { \
    real xv[GP_EW_ITEMS];                                                                                          \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                        \
      const long i = GP_EW_INDEX(k);                                                                               \
      xv[k] = i < n ? LOAD(x, i) : R(0);                                                                           \
    }                                                                                                              \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                        \
      const long i = GP_EW_INDEX(k);                                                                               \
      if (i < n) STORE(y, i, f_##NAME(xv[k], P, A));                                                               \
    }                                                                                                              \
  }                                                                                                                \
  __kernel void unary_bwd_##NAME(__global const store_t* x, __global const store_t* y, __global const store_t* g,  \
                                 __global store_t* dx, long n, real P, real A, int op) {                           \
    real xv[GP_EW_ITEMS], yv[GP_EW_ITEMS], gv[GP_EW_ITEMS];                                                        \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                        \
      const long i = GP_EW_INDEX(k);                                                                               \
      xv[k] = i < n ? LOAD(x, i) : R(0);                                                                           \
      yv[k] = i < n ? LOAD(y, i) : R(0);                                                                           \
      gv[k] = i < n ? LOAD(g, i) : R(0);                                                                           \
    }                                                                                                              \
    for (int k = 0; k < GP_EW_ITEMS; ++k) {                                                                        \
      const long i = GP_EW_INDEX(k);                                                                               \
      if (i < n) STORE(dx, i, d_##NAME(xv[k], yv[k], gv[k], P, A));                                                \
    }                                                                                                              \
  }

#ifdef GP_GENERIC_ELEMENTWISE
#define GP_UNARY_F_CASE(NAME) \
  case GP_OP_##NAME:          \
    return f_##NAME(x, P, A);
#define GP_UNARY_D_CASE(NAME) \
  case GP_OP_##NAME:          \
    return d_##NAME(x, y, g, P, A);
inline real f_switch(int op, real x, real P, real A) {
  switch (op) { GP_UNARY_OPS(GP_UNARY_F_CASE) }
  return R(0);
}
inline real d_switch(int op, real x, real y, real g, real P, real A) {
  switch (op) { GP_UNARY_OPS(GP_UNARY_D_CASE) }
  return R(0);
}
#define f_any(x, P, A) f_switch(op, x, P, A) /* op: the kernel's argument */
#define d_any(x, y, g, P, A) d_switch(op, x, y, g, P, A)
GP_DEFINE_UNARY(any)
#else
GP_UNARY_OPS(GP_DEFINE_UNARY)
#endif
