#version 450
// exp, f32, backward from the stored output: d exp(x) = exp(x).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float in0[]; };
layout(std430, binding = 1) readonly buffer Out { float out_[]; };
layout(std430, binding = 2) readonly buffer Dout { float dout[]; };
layout(std430, binding = 3) writeonly buffer Grad0 { float grad0[]; };

void main() {
  const uint i = GP_INDEX;
  if (i >= p.count) return;
  grad0[i] = dout[i] * out_[i];
}
