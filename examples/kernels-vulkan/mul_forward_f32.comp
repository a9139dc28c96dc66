#version 450
// mul, f32, with NumPy broadcasting: buffers 0 and 1 are the inputs, 2 the output; dims are
// padded on the left to 4, so a broadcast dim is a 1 where the output has more.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float in0[]; };
layout(std430, binding = 1) readonly buffer In1 { float in1[]; };
layout(std430, binding = 2) writeonly buffer Out { float out_[]; };

// The element of buffer t that output element o reads.
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

void main() {
  const uint i = GP_INDEX;
  if (i >= p.count) return;
  out_[i] = in0[broadcast_index(0, i)] * in1[broadcast_index(1, i)];
}
