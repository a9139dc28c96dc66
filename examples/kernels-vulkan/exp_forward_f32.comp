#version 450
// exp, f32: one invocation per element. gradparity inserts the parameter block `p` (binding 2:
// after in0 and out) and GP_INDEX after the #version line.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float in0[]; };
layout(std430, binding = 1) writeonly buffer Out { float out_[]; };

void main() {
  const uint i = GP_INDEX;
  if (i >= p.count) return;
  out_[i] = exp(in0[i]);
}
