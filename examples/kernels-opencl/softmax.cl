// softmax along p->axis, f32: one work item per line (the first outer * inner items of the
// launch; the others return). A line is n elements `inner` apart.

void line_of(__global const gp_params* p, uint item, uint* start, uint* n, uint* inner) {
  const uint axis = p->axis + (4 - p->rank[0]);  // the axis among the padded dims
  *inner = 1;
  for (uint k = axis + 1; k < 4; ++k) *inner *= GP_DIM(p, 0, k);
  *n = GP_DIM(p, 0, axis);
  *start = (item / *inner) * *n * *inner + item % *inner;
}

__kernel void softmax_forward_f32(__global const float* in0, __global float* out, __global const gp_params* p) {
  const uint item = get_global_id(0);
  uint start, n, inner;
  line_of(p, item, &start, &n, &inner);
  if (item >= p->count / n) return;
  float top = -INFINITY;
  for (uint j = 0; j < n; ++j) top = fmax(top, in0[start + j * inner]);
  float sum = 0.0f;
  for (uint j = 0; j < n; ++j) sum += exp(in0[start + j * inner] - top);
  for (uint j = 0; j < n; ++j) out[start + j * inner] = exp(in0[start + j * inner] - top) / sum;
}

// dx = y (g - sum(g y)) along the line, from the stored output y.
__kernel void softmax_backward_f32(__global const float* in0, __global const float* out, __global const float* dout,
                                   __global float* grad0, __global const gp_params* p) {
  const uint item = get_global_id(0);
  uint start, n, inner;
  line_of(p, item, &start, &n, &inner);
  if (item >= p->count / n) return;
  float dot = 0.0f;
  for (uint j = 0; j < n; ++j) dot += dout[start + j * inner] * out[start + j * inner];
  for (uint j = 0; j < n; ++j) grad0[start + j * inner] = out[start + j * inner] * (dout[start + j * inner] - dot);
}
