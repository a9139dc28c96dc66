#version 450
// softmax along p.axis, f32: one invocation per line (the first outer * inner invocations; the
// others return). A line is n elements `inner` apart.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { float in0[]; };
layout(std430, binding = 1) writeonly buffer Out { float out_[]; };

void main() {
  const uint item = GP_INDEX;
  const uint axis = uint(p.axis) + (4 - p.rank[0]);  // the axis among the padded dims
  uint inner = 1;
  for (uint k = axis + 1; k < 4; ++k) inner *= GP_DIM(p, 0, k);
  const uint n = GP_DIM(p, 0, axis);
  if (item >= p.count / n) return;
  const uint start = (item / inner) * n * inner + item % inner;
  float top = -1.0 / 0.0;
  for (uint j = 0; j < n; ++j) top = max(top, in0[start + j * inner]);
  float sum = 0.0;
  for (uint j = 0; j < n; ++j) sum += exp(in0[start + j * inner] - top);
  for (uint j = 0; j < n; ++j) out_[start + j * inner] = exp(in0[start + j * inner] - top) / sum;
}
