// exp, f32: one work item per element. The backward reuses the stored output: d exp(x) = exp(x).
__kernel void exp_forward_f32(__global const float* in0, __global float* out, __global const gp_params* p) {
  const uint i = get_global_id(0);
  if (i >= p->count) return;
  out[i] = exp(in0[i]);
}

__kernel void exp_backward_f32(__global const float* in0, __global const float* out, __global const float* dout,
                               __global float* grad0, __global const gp_params* p) {
  const uint i = get_global_id(0);
  if (i >= p->count) return;
  grad0[i] = dout[i] * out[i];
}
