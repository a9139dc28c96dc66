// Tiled matrix product C[b] = A[b] B[b] (+ bias over columns), GP_TILE x GP_TILE work-groups
// staging tiles of A and B in local memory. A is a logical [M, K] matrix whose element (r, c)
// sits at b * a_bs + r * a_rs + c * a_cs (B likewise), so the same kernel serves matmul,
// linear (B = W^T) and every backward product (transposes are stride swaps). C is contiguous.
// Split K: with `slices` > 1, dimension 2 of the grid is batch * slices and each group sums the
// inner indices [slice * slice_k, (slice + 1) * slice_k) of its tile into `partials`
// ([batch][slices][M][N]); matmul_sum_slices adds them in slice order. A product of a few output
// tiles and a long inner size (64 x 64 outputs of 65,536-term dot products) otherwise ran on 16
// groups.
__kernel __attribute__((reqd_work_group_size(GP_TILE, GP_TILE, 1))) void matmul_tiled(
    __global const store_t* A, __global const store_t* B, __global store_t* C, __global const store_t* bias,
    __global real* partials, int M, int N, int K, int a_rs, int a_cs, int a_bs, int b_rs, int b_cs, int b_bs,
    int has_bias, int slices, int slice_k) {
  __local real As[GP_TILE][GP_TILE + 1];
  __local real Bs[GP_TILE][GP_TILE + 1];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int col = get_group_id(0) * GP_TILE + tx;
  const int row = get_group_id(1) * GP_TILE + ty;
  const int batch = get_group_id(2) / slices, slice = get_group_id(2) % slices;
  const int a0 = batch * a_bs, b0 = batch * b_bs;
  const int k_begin = slice * slice_k, k_end = min(K, k_begin + slice_k);
  real acc = R(0);
  for (int t0 = k_begin; t0 < k_end; t0 += GP_TILE) {
    int ka = t0 + tx, kb = t0 + ty;
    As[ty][tx] = (row < M && ka < k_end) ? LOAD(A, a0 + row * a_rs + ka * a_cs) : R(0);
    Bs[ty][tx] = (kb < k_end && col < N) ? LOAD(B, b0 + kb * b_rs + col * b_cs) : R(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < GP_TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row >= M || col >= N) return;
  if (slices > 1) {
    partials[((batch * slices + slice) * M + row) * N + col] = acc;
    return;
  }
  if (has_bias) acc += LOAD(bias, col);
  STORE(C, batch * M * N + row * N + col, acc);
}

// C = the slices' partial products added in slice order (+ bias); one item per element of C.
__kernel void matmul_sum_slices(__global const real* partials, __global store_t* C, __global const store_t* bias, int M,
                                int N, int batches, int slices, int has_bias) {
  const int e = get_global_id(0);
  if (e >= batches * M * N) return;
  const int batch = e / (M * N), at = e % (M * N);
  real acc = partials[batch * slices * M * N + at];
  for (int s = 1; s < slices; ++s) acc += partials[(batch * slices + s) * M * N + at];
  if (has_bias) acc += LOAD(bias, at % N);
  STORE(C, e, acc);
}

// log_matmul_exp, one work item per element. C[i, j] = log sum_p exp(A[i, p] + B[p, j]) in one
// pass: the running maximum m and rest = the sum, over every term seen but the maximum's, of
// exp(t - m); a new maximum rescales rest (the old maximum's term, 1, joins it). No term is exp'd
// unshifted, and log1p(rest) keeps the digits of a row dominated by its maximum.
inline real log_sum_exp_at(__global const store_t* A, __global const store_t* B, int i, int j, int N, int K,
                           real* rest_out) {
  real m = LOAD(A, i * K) + LOAD(B, j), rest = R(0);
  for (int p = 1; p < K; ++p) {
    const real t = LOAD(A, i * K + p) + LOAD(B, p * N + j);
    if (t > m) {
      rest = (rest + R(1)) * exp(m - t);
      m = t;
    } else {
      rest += exp(t - m);
    }
  }
  *rest_out = rest;
  return m;
}

__kernel void log_matmul_exp_forward(__global const store_t* A, __global const store_t* B, __global store_t* C, int M,
                                     int N, int K) {
  const int e = get_global_id(0);
  if (e >= M * N) return;
  real rest;
  const real m = log_sum_exp_at(A, B, e / N, e % N, N, K, &rest);
  STORE(C, e, m + log1p(rest));
}

// S[2 e] = m, S[2 e + 1] = 1 + rest of element e = (i, j), for the gradients' weights
// exp(t - m) / (1 + rest): recomputed from A and B, not exp(t - C) from the stored C, whose
// rounding (|C| u, or a 16-bit spacing) would reach the exponent (docs/error-model.md,
// "Backward formulations").
__kernel void log_matmul_exp_stats(__global const store_t* A, __global const store_t* B, __global real* S, int M, int N,
                                   int K) {
  const int e = get_global_id(0);
  if (e >= M * N) return;
  real rest;
  S[2 * e] = log_sum_exp_at(A, B, e / N, e % N, N, K, &rest);
  S[2 * e + 1] = R(1) + rest;
}

// The weight of term p in C[i, j] is exp(A[i, p] + B[p, j] - m) / (1 + rest), from S.
//   wrt_b = 0: D = dA, D[i, p] = sum_j G[i, j] weight (one item per (i, p))
//   wrt_b = 1: D = dB, D[p, j] = sum_i G[i, j] weight (one item per (p, j))
__kernel void log_matmul_exp_grad(__global const store_t* A, __global const store_t* B, __global const real* S,
                                  __global const store_t* G, __global store_t* D, int M, int N, int K, int wrt_b) {
  const int e = get_global_id(0);
  if (e >= (wrt_b ? K * N : M * K)) return;
  int i = e / K, p = e % K, j = 0;
  if (wrt_b) i = 0, p = e / N, j = e % N;
  real acc = R(0);
  for (int l = 0, count = wrt_b ? M : N; l < count; ++l) {
    if (wrt_b)
      i = l;
    else
      j = l;
    const real t = LOAD(A, i * K + p) + LOAD(B, p * N + j);
    const int c = i * N + j;
    acc += LOAD(G, c) * (exp(t - S[2 * c]) / S[2 * c + 1]);
  }
  STORE(D, e, acc);
}
