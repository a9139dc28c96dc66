#version 450
// softmax, f32, backward from the stored output y: dx = y (g - sum(g y)) along the line.
layout(local_size_x = 64) in;
layout(std430, binding = 1) readonly buffer Out { float out_[]; };
layout(std430, binding = 2) readonly buffer Dout { float dout[]; };
layout(std430, binding = 3) writeonly buffer Grad0 { float grad0[]; };

void main() {
  const uint item = GP_INDEX;
  const uint axis = uint(p.axis) + (4 - p.rank[0]);
  uint inner = 1;
  for (uint k = axis + 1; k < 4; ++k) inner *= GP_DIM(p, 0, k);
  const uint n = GP_DIM(p, 0, axis);
  if (item >= p.count / n) return;
  const uint start = (item / inner) * n * inner + item % inner;
  float dot = 0.0;
  for (uint j = 0; j < n; ++j) dot += dout[start + j * inner] * out_[start + j * inner];
  for (uint j = 0; j < n; ++j) grad0[start + j * inner] = out_[start + j * inner] * (dout[start + j * inner] - dot);
}
