// Tiled matrix product C[b] = A[b] B[b] (+ bias over columns), GP_TILE x GP_TILE work-groups
// staging tiles of A and B in local memory. A is a logical [M, K] matrix whose element (r, c)
// sits at b * a_bs + r * a_rs + c * a_cs (B likewise), so the same kernel serves matmul,
// linear (B = W^T) and every backward product (transposes are stride swaps). C is contiguous.
__kernel __attribute__((reqd_work_group_size(GP_TILE, GP_TILE, 1))) void matmul_tiled(
    __global const store_t* A, __global const store_t* B, __global store_t* C, __global const store_t* bias,
    int M, int N, int K, int a_rs, int a_cs, int a_bs, int b_rs, int b_cs, int b_bs, int has_bias) {
  __local real As[GP_TILE][GP_TILE + 1];
  __local real Bs[GP_TILE][GP_TILE + 1];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int col = get_group_id(0) * GP_TILE + tx;
  const int row = get_group_id(1) * GP_TILE + ty;
  const int batch = get_group_id(2);
  const int a0 = batch * a_bs, b0 = batch * b_bs;
  real acc = R(0);
  for (int t0 = 0; t0 < K; t0 += GP_TILE) {
    int ka = t0 + tx, kb = t0 + ty;
    As[ty][tx] = (row < M && ka < K) ? LOAD(A, a0 + row * a_rs + ka * a_cs) : R(0);
    Bs[ty][tx] = (kb < K && col < N) ? LOAD(B, b0 + kb * b_rs + col * b_cs) : R(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < GP_TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) {
    if (has_bias) acc += LOAD(bias, col);
    STORE(C, batch * M * N + row * N + col, acc);
  }
}
