// mul, f32, with NumPy broadcasting: buffer 0 and 1 are the inputs, 2 the output. Dims are padded
// on the left to 4, so a broadcast dim is a 1 where the output has more.

// The element of buffer t that output element o reads.
uint broadcast_index(__global const gp_params* p, uint t, uint o) {
  uint index = 0, stride = 1;
  for (int k = 3; k >= 0; --k) {
    const uint out_dim = GP_DIM(p, 2, k), dim = GP_DIM(p, t, k);
    const uint coord = o % out_dim;
    o /= out_dim;
    if (dim != 1) index += coord * stride;
    stride *= dim;
  }
  return index;
}

__kernel void mul_forward_f32(__global const float* in0, __global const float* in1, __global float* out,
                              __global const gp_params* p) {
  const uint i = get_global_id(0);
  if (i >= p->count) return;
  out[i] = in0[broadcast_index(p, 0, i)] * in1[broadcast_index(p, 1, i)];
}

// d(a b)/da = b: element j of input t's gradient sums dout * other over the output elements that
// read j (one, or several along the dims where t is broadcast).
float gradient_of(__global const gp_params* p, uint t, uint j, __global const float* other,
                  __global const float* dout) {
  uint lo[4], hi[4];
  for (int k = 3; k >= 0; --k) {
    const uint dim = GP_DIM(p, t, k), out_dim = GP_DIM(p, 2, k);
    const uint coord = j % dim;
    j /= dim;
    lo[k] = dim == 1 ? 0 : coord;
    hi[k] = dim == 1 ? out_dim : coord + 1;
  }
  float sum = 0.0f;
  for (uint a = lo[0]; a < hi[0]; ++a)
    for (uint b = lo[1]; b < hi[1]; ++b)
      for (uint c = lo[2]; c < hi[2]; ++c)
        for (uint d = lo[3]; d < hi[3]; ++d) {
          const uint o = ((a * GP_DIM(p, 2, 1) + b) * GP_DIM(p, 2, 2) + c) * GP_DIM(p, 2, 3) + d;
          sum += dout[o] * other[broadcast_index(p, 1 - t, o)];
        }
  return sum;
}

// Launched over the larger gradient; each work item writes its element of each gradient it has.
__kernel void mul_backward_f32(__global const float* in0, __global const float* in1, __global const float* out,
                               __global const float* dout, __global float* grad0, __global float* grad1,
                               __global const gp_params* p) {
  const uint i = get_global_id(0);
  if (i >= p->count) return;
  if (i < p->numel[0]) grad0[i] = gradient_of(p, 0, i, in1, dout);
  if (i < p->numel[1]) grad1[i] = gradient_of(p, 1, i, in0, dout);
}
