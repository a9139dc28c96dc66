#version 450
// mul, f32, backward: d(a b)/da = b. Element j of input t's gradient sums dout * other over the
// output elements that read j (one, or several along the dims where t is broadcast). Launched
// over the larger gradient; each invocation writes its element of each gradient it has.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float in0[]; };
layout(std430, binding = 1) readonly buffer In1 { float in1[]; };
layout(std430, binding = 3) readonly buffer Dout { float dout[]; };
layout(std430, binding = 4) writeonly buffer Grad0 { float grad0[]; };
layout(std430, binding = 5) writeonly buffer Grad1 { float grad1[]; };

uint broadcast_index(uint t, uint o) {
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

float other(uint t, uint o) { return t == 0 ? in1[broadcast_index(1, o)] : in0[broadcast_index(0, o)]; }

float gradient_of(uint t, uint j) {
  uint lo[4], hi[4];
  for (int k = 3; k >= 0; --k) {
    const uint dim = GP_DIM(p, t, k), out_dim = GP_DIM(p, 2, k);
    const uint coord = j % dim;
    j /= dim;
    lo[k] = dim == 1 ? 0 : coord;
    hi[k] = dim == 1 ? out_dim : coord + 1;
  }
  float sum = 0.0;
  for (uint a = lo[0]; a < hi[0]; ++a)
    for (uint b = lo[1]; b < hi[1]; ++b)
      for (uint c = lo[2]; c < hi[2]; ++c)
        for (uint d = lo[3]; d < hi[3]; ++d) {
          const uint o = ((a * GP_DIM(p, 2, 1) + b) * GP_DIM(p, 2, 2) + c) * GP_DIM(p, 2, 3) + d;
          sum += dout[o] * other(t, o);
        }
  return sum;
}

void main() {
  const uint i = GP_INDEX;
  if (i >= p.count) return;
  if (i < p.numel[0]) grad0[i] = gradient_of(0, i);
  if (i < p.numel[1]) grad1[i] = gradient_of(1, i);
}
