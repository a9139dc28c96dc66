// Arithmetic-bound work for `gradparity bench`'s compute ceiling (Queue::arithmetic_probe): each
// work item runs eight independent chains of multiply-adds in `real`, steps / 8 links each, and
// stores their sum, so the loop is bound by the device's multiply-add rate and not by a chain's
// latency or by memory.
__kernel void arithmetic_probe(__global store_t* out, int n, int steps) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const real a = (real)0.999999, b = (real)1e-6;
  real x0 = (real)(i % 7), x1 = x0 + (real)0.125, x2 = x0 + (real)0.25, x3 = x0 + (real)0.375;
  real x4 = x0 + (real)0.5, x5 = x0 + (real)0.625, x6 = x0 + (real)0.75, x7 = x0 + (real)0.875;
  for (int s = 0; s < steps; s += 8) {
    x0 = fma(x0, a, b);
    x1 = fma(x1, a, b);
    x2 = fma(x2, a, b);
    x3 = fma(x3, a, b);
    x4 = fma(x4, a, b);
    x5 = fma(x5, a, b);
    x6 = fma(x6, a, b);
    x7 = fma(x7, a, b);
  }
  STORE(out, i, ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)));
}
