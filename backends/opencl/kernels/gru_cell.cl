// gru_cell (core/README.md): one GRU step, PyTorch / cuDNN gates, rows r, z, n of the weights
// (core's GruGeometry). One work item per element of each pass's output. The forward computes
// its unit's gates (six dot products, bias first); the backward's first pass computes each unit's
// gate gradients once into a compute-type scratch, which every gradient pass reads (recomputed
// per gradient element they cost H or B units' gates each: 126 times the forward at batch 8,
// input 16, hidden 32, on PoCL). Sigmoids as pairs from one exp (1 - z is sigmoid(-a_z)); tanh' as
// 4e / (1 + e)^2, e = exp(-2|p|), not 1 - n^2, which cancels.
#define GRU_INPUTS                                                                                                 \
  __global const store_t *X, __global const store_t *Hs, __global const store_t *Wih, __global const store_t *Whh, \
      __global const store_t *Bih, __global const store_t *Bhh
#define GRU_PASS_INPUTS X, Hs, Wih, Whh, Bih, Bhh

typedef struct {
  real a_r, a_z, gh_n, p_n, r, r_minus, z, z_minus, n;
} gru_unit;

// A unit's gate gradients at its rows of W_ih (gi) and W_hh (gh), gates r, z, n, and its z.
typedef struct {
  real gi[3], gh[3], z;
} gru_grads;

// bias[row] + W[row, :] . V[b, :], W [rows, len], V [batch, len].
inline real gru_affine(__global const store_t* W, __global const store_t* bias, __global const store_t* V, int row,
                       int b, int len) {
  real acc = LOAD(bias, row);
  for (int k = 0; k < len; ++k) acc += LOAD(W, row * len + k) * LOAD(V, b * len + k);
  return acc;
}

inline gru_unit gru_unit_at(GRU_INPUTS, int b, int j, int I, int H) {
  gru_unit u;
  u.a_r = gru_affine(Wih, Bih, X, j, b, I) + gru_affine(Whh, Bhh, Hs, j, b, H);
  u.a_z = gru_affine(Wih, Bih, X, H + j, b, I) + gru_affine(Whh, Bhh, Hs, H + j, b, H);
  u.gh_n = gru_affine(Whh, Bhh, Hs, 2 * H + j, b, H);
  real minus;
  u.r = sigmoid_pair(u.a_r, &minus);
  u.r_minus = minus;
  u.z = sigmoid_pair(u.a_z, &minus);
  u.z_minus = minus;
  u.p_n = gru_affine(Wih, Bih, X, 2 * H + j, b, I) + u.r * u.gh_n;
  u.n = tanh(u.p_n);
  return u;
}

inline gru_grads gru_grads_at(GRU_INPUTS, __global const store_t* G, int b, int j, int I, int H) {
  const gru_unit u = gru_unit_at(GRU_PASS_INPUTS, b, j, I, H);
  const real g = LOAD(G, b * H + j), e = exp(R(-2) * fabs(u.p_n));
  const real da_n = (g * u.z_minus) * (R(4) * e / ((R(1) + e) * (R(1) + e)));
  const real da_z = (g * (LOAD(Hs, b * H + j) - u.n)) * (u.z * u.z_minus);
  const real da_r = (da_n * u.gh_n) * (u.r * u.r_minus);
  gru_grads d;
  d.gi[0] = d.gh[0] = da_r;
  d.gi[1] = d.gh[1] = da_z;
  d.gi[2] = da_n;
  d.gh[2] = da_n * u.r;
  d.z = u.z;
  return d;
}

__kernel void gru_cell_forward(GRU_INPUTS, __global store_t* Y, int B, int I, int H) {
  const int e = get_global_id(0);
  if (e >= B * H) return;
  const gru_unit u = gru_unit_at(GRU_PASS_INPUTS, e / H, e % H, I, H);
  STORE(Y, e, u.z_minus * u.n + u.z * LOAD(Hs, e));
}

// The gate gradients of every unit (b, j), kGruGateValues per unit: gi[0..2], gh[0..2], z.
#define GRU_GATE_VALUES 7
__kernel void gru_cell_gates(GRU_INPUTS, __global const store_t* G, __global real* S, int B, int I, int H) {
  const int e = get_global_id(0);
  if (e >= B * H) return;
  const gru_grads d = gru_grads_at(GRU_PASS_INPUTS, G, e / H, e % H, I, H);
  __global real* s = S + e * GRU_GATE_VALUES;
  for (int gate = 0; gate < 3; ++gate) {
    s[gate] = d.gi[gate];
    s[3 + gate] = d.gh[gate];
  }
  s[6] = d.z;
}

// D = the gradient of input `wrt` (0..5: x, h, W_ih, W_hh, b_ih, b_hh) from the gate gradients S.
// Odd wrt are the state's side (gh, h), even ones the input's (gi, x).
//   dx, dh [b, k]:   (g z for dh) + sum over units j and gates of W[gate H + j, k] d.g?[gate]
//   dW [row, k]:     sum over the batch, in order, of d.g?[gate] V[b, k]  (row = gate H + j)
//   db [row]:        sum over the batch, in order, of d.g?[gate]
__kernel void gru_cell_grad(__global const store_t* X, __global const store_t* Hs, __global const store_t* Wih,
                            __global const store_t* Whh, __global const store_t* G, __global const real* S,
                            __global store_t* D, int B, int I, int H, int wrt) {
  const int e = get_global_id(0);
  const int state = wrt % 2, len = state ? H : I, rows = 3 * H, side = state ? 3 : 0;
  if (e >= (wrt < 2 ? B * len : wrt < 4 ? rows * len : rows)) return;
  real acc = R(0);
  if (wrt < 2) {
    const int b = e / len, k = e % len;
    __global const store_t* W = state ? Whh : Wih;
    if (state) acc = LOAD(G, e) * S[(b * H + k) * GRU_GATE_VALUES + 6];
    for (int j = 0; j < H; ++j) {
      __global const real* d = S + (b * H + j) * GRU_GATE_VALUES + side;
      for (int gate = 0; gate < 3; ++gate) acc += LOAD(W, (gate * H + j) * len + k) * d[gate];
    }
  } else {
    const int row = wrt < 4 ? e / len : e, k = wrt < 4 ? e % len : 0, gate = row / H;
    __global const store_t* V = state ? Hs : X;
    for (int b = 0; b < B; ++b) {
      const real t = S[(b * H + row % H) * GRU_GATE_VALUES + side + gate];
      acc += wrt < 4 ? t * LOAD(V, b * len + k) : t;
    }
  }
  STORE(D, e, acc);
}
