// Optimizer steps: one work item per element of the flattened parameter, writing row 0 (the new
// parameter) and the state rows of `out` ([rows, n]). The scalars are core's optimizer_scalars,
// passed in the arithmetic type. Forward only.

// flags: bit 0 weight decay on, bit 1 momentum on, bit 2 Nesterov, bit 3 fresh buffer (first step)
__kernel void sgd_step_fwd(__global const store_t* param, __global const store_t* grad, __global const store_t* buf,
                           __global store_t* out, int n, real lr, real wd, real mu, real keep, int flags) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const real p = LOAD(param, i);
  real d = LOAD(grad, i);
  if (flags & 1) d += wd * p;
  real b = LOAD(buf, i);
  if (flags & 2) {
    b = (flags & 8) ? d : mu * b + keep * d;
    d = (flags & 4) ? d + mu * b : b;
  }
  STORE(out, i, p - lr * d);
  STORE(out, n + i, b);
}

// 1 - beta^t from 1 - beta, without the cancellation of 1 - pow(beta, t).
inline real one_minus_power(real one_minus_beta, real t) { return -expm1(t * log1p(-one_minus_beta)); }

__kernel void adamw_step_fwd(__global const store_t* param, __global const store_t* grad, __global const store_t* m,
                             __global const store_t* v, __global store_t* out, int n, real lr, real decay, real b1,
                             real k1, real b2, real k2, real eps, real t) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const real c1 = one_minus_power(k1, t), c2 = one_minus_power(k2, t);
  const real g = LOAD(grad, i);
  const real m1 = b1 * LOAD(m, i) + k1 * g;
  const real v1 = b2 * LOAD(v, i) + k2 * (g * g);
  const real denom = sqrt(v1 / c2) + eps;
  STORE(out, i, decay * LOAD(param, i) - lr * (m1 / c1) / denom);
  STORE(out, n + i, m1);
  STORE(out, 2 * n + i, v1);
}
