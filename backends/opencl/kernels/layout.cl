// Layout ops: copies with index arithmetic only (reshape, transpose, concat, slice).

// GP_EW_ITEMS elements per work item, local-size apart, all loaded before any store (see
// GP_EW_INDEX in common.cl); launched by run_elementwise_wide.
__kernel void copy_store(__global const bits_t* src, __global bits_t* dst, int n) {
  bits_t v[GP_EW_ITEMS];
  for (int k = 0; k < GP_EW_ITEMS; ++k) {
    const int i = GP_EW_INDEX(k);
    v[k] = i < n ? src[i] : (bits_t)0;
  }
  for (int k = 0; k < GP_EW_ITEMS; ++k) {
    const int i = GP_EW_INDEX(k);
    if (i < n) dst[i] = v[k];
  }
}

__kernel void fill_zero(__global store_t* dst, int n) {
  const int i = get_global_id(0);
  if (i < n) STORE(dst, i, R(0));
}

// dst[b, c, r] = src[b, r, c] for src [batch, rows, cols].
__kernel void transpose_last2(__global const bits_t* src, __global bits_t* dst, int batch, int rows, int cols) {
  const int i = get_global_id(0);
  if (i >= batch * rows * cols) return;
  int r = i % rows;
  int rest = i / rows;
  int c = rest % cols;
  int b = rest / cols;
  dst[i] = src[(b * rows + r) * cols + c];
}

// For (o, j, k) in [outer, n, inner]: dst[(o dst_n + dst_off + j dst_step) inner + k] =
// src[(o src_n + src_off + j src_step) inner + k]. Concat and slice forward and backward are
// all this copy with different offsets and steps along the axis.
__kernel void axis_copy(__global const bits_t* src, __global bits_t* dst, int outer, int n, int inner, int src_n,
                        int src_off, int src_step, int dst_n, int dst_off, int dst_step) {
  const int i = get_global_id(0);
  if (i >= outer * n * inner) return;
  int k = i % inner;
  int rest = i / inner;
  int j = rest % n;
  int o = rest / n;
  dst[(o * dst_n + dst_off + j * dst_step) * inner + k] = src[(o * src_n + src_off + j * src_step) * inner + k];
}

// A strided input's contiguous copy (core/strided.hpp): dst[i] = src[offset + Σ c_d strides_d],
// c the coordinates of element i in dims (rank 4, leading dimensions of 1 with stride 0).
__kernel void strided_gather(__global const bits_t* src, __global bits_t* dst, int n, int4 dims, int4 strides,
                             int offset) {
  const int i = get_global_id(0);
  if (i >= n) return;
  int rest = i;
  const int c3 = rest % dims.w;
  rest /= dims.w;
  const int c2 = rest % dims.z;
  rest /= dims.z;
  const int c1 = rest % dims.y;
  const int c0 = rest / dims.y;
  dst[i] = src[offset + c0 * strides.x + c1 * strides.y + c2 * strides.z + c3 * strides.w];
}
