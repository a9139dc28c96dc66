#version 450
// Arithmetic-bound work for `gradparity bench`'s compute ceiling (Queue::arithmetic_probe): each
// invocation runs eight independent chains of multiply-adds in the compute type, steps / 8 links
// each, and stores their sum, so the loop is bound by the device's multiply-add rate and not by a
// chain's latency or by memory. The chains are those of the OpenCL backend's kernels/probe.cl.
#define LOCAL_X 256
#include "common.glsl"

BUF(0, out_)

layout(push_constant) uniform Push {
  uint count;
  uint steps;
} pc;

void main() {
  const uint i = group_linear() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i >= pc.count) return;
#if defined(IS_F64)
  const C a = 0.999999lf, b = 1e-6lf;
#else
  const C a = 0.999999, b = 1e-6;
#endif
  C x0 = C(i % 7u), x1 = x0 + K(0.125), x2 = x0 + K(0.25), x3 = x0 + K(0.375);
  C x4 = x0 + K(0.5), x5 = x0 + K(0.625), x6 = x0 + K(0.75), x7 = x0 + K(0.875);
  [[dont_unroll]] for (uint s = 0u; s < pc.steps; s += 8u) {
    x0 = fma(x0, a, b);
    x1 = fma(x1, a, b);
    x2 = fma(x2, a, b);
    x3 = fma(x3, a, b);
    x4 = fma(x4, a, b);
    x5 = fma(x5, a, b);
    x6 = fma(x6, a, b);
    x7 = fma(x7, a, b);
  }
  out_[i] = FROM_C(((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)));
}
