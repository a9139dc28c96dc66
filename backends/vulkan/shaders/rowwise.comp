#version 450
// Reductions, row-wise ops and losses on the [outer, n, inner] view of core's split_at_axis:
// one work group per row (outer * inner rows; element j of row (o, i) sits at
// (o * n + j) * inner + i); invocations stride over the row and combine through subgroup and
// shared-memory reductions (reduce.glsl). Backward passes recompute row statistics in C precision
// instead of reading the stored (possibly 16-bit) forward output.
//
// A long row is split into pc.chunks chunks of consecutive elements, one group each, and the host
// dispatches the phases one after the other (PHASE_*): a group reduces its chunk into partials_,
// and every group of the next phase combines its row's partials in chunk order (the same order
// in every group, so a row's statistics are the same everywhere and do not depend on timing).
// One group per row of 10^7 elements ran 39,063 iterations per loop and invocation, past the
// loop limit of lavapipe (llvmpipe ends a shader's loops after 65,535 iterations, shared between
// them), and left a GPU with one busy group per row.
//
// layer_norm's dw and db are column sums over the rows: column tiles as in binary.comp (a group
// sums a chunk of rows for 32 neighbouring columns, coalesced) into partials, then a pass that
// adds the chunks in order.
//
// Every op runs the same phases - an optional row max, up to three stages of sums (stage 2 may
// use stage 1's results, stage 3 both), then per-element / per-row writes - so the shader holds
// four reduction sites instead of one per op: lavapipe compiles each barrier site into its
// coroutine state machine, and this keeps the first-dispatch compile time down (the third stage,
// layer_norm's and rms_norm's backward alone, added 0.07 s to a cold one).
//
// bspline_basis (bspline.glsl) is the exception: a row of bases per value, with nothing to reduce,
// one invocation per value.
#define WG 256
#define LOCAL_X WG
#include "common.glsl"
#include "math.glsl"
#include "op_codes.h"

BUF(0, x_)      // x, logits, a
BUF(1, w_)      // layer_norm and rms_norm weight, gumbel noise, mse b, bce targets
BUF(2, bias_)   // layer_norm bias (rms_norm has none)
BUF(3, y_)      // forward output
BUF(4, g_)      // output gradient
BUF(5, dx_)     // gradient of input 0
BUF(6, dw_)     // gradient of input 1
BUF(7, db_)     // gradient of input 2
layout(std430, set = 0, binding = 8) buffer Buf8 { C scratch_[]; };  // per-row stats / losses;
                                                                     // then layer_norm's dw/db partials
IBUF(9, target_)  // cross_entropy class indices
layout(std430, set = 0, binding = 10) buffer Buf10 { C partials_[]; };  // split rows: per chunk
                                                                        // max, stage-1 and -2 sums

layout(push_constant) uniform Push {
  uint op;
  uint backward;
  uint outer;
  uint n;
  uint inner;
  int correction;
  uint mean_reduction;  // mse_loss: 1 = mean, 0 = sum
  uint chunk_rows;      // ROP_LAYER_NORM_PARAMS: rows per chunk (n: rows, inner: columns, outer: chunks)
  uvec2 eps_bits;
  uvec2 tau_bits;
  float eps_f;
  float tau_f;
  uint order;  // bspline_basis degree (pc.n = grid + order bases per value)
  uint grid;
  uint chunks;  // groups per row; with more than one, `phase` says which pass this is
  uint phase;
} pc;
#define OP SPEC_OR_PUSH(SPEC_OP, pc.op)
#define BWD (SPEC_OR_PUSH(SPEC_MODE, pc.backward) != 0u)

#include "reduce.glsl"
#include "bspline.glsl"

uint lid, row, chunk;
uint begin, end;  // this group's elements of the row: [begin, end)
// The invocation that writes a row's scalars (its first group's first invocation).
bool leader() { return lid == 0u && chunk == 0u; }

const uint PHASE_MAX = 0u, PHASE_STAGE1 = 1u, PHASE_STAGE2 = 2u, PHASE_STAGE3 = 3u, PHASE_WRITES = 4u;
const uint PARTIALS = 8u;  // per chunk: the max (and a slot unused), stage-1, -2 and -3 sums
bool split() { return pc.chunks > 1u; }
uint row_partial_at(uint c, uint k) { return (row * pc.chunks + c) * PARTIALS + k; }

uint row_base, row_stride;  // element j of this row is at row_base + j * row_stride
uint at(uint j) { return row_base + j * row_stride; }
C X(uint j) { return TO_C(x_[at(j)]); }
C G(uint j) { return TO_C(g_[at(j)]); }
C tau() { return ATTR(pc.tau_bits, pc.tau_f); }
// layer_norm centres its rows; rms_norm is layer_norm with the mean taken as 0 and no bias.
bool centred() { return OP == GP_OP_layer_norm; }

// The row's value before normalisation: gumbel_softmax adds the noise and divides by tau.
C V(uint j) { return OP == GP_OP_gumbel_softmax ? (X(j) + TO_C(w_[at(j)])) / tau() : X(j); }

bool needs_max() {
  switch (OP) {
    case GP_OP_max: return !BWD;
    case GP_OP_logsumexp:
    case GP_OP_softmax:
    case GP_OP_gumbel_softmax:
    case GP_OP_log_softmax:
    case GP_OP_cross_entropy: return true;
  }
  return false;
}

bool needs_stage1() {
  switch (OP) {
    case GP_OP_sum:
    case GP_OP_mean:
    case GP_OP_mse_loss:
    case GP_OP_bce_with_logits: return !BWD;
    case GP_OP_max: return BWD;  // how many entries equal the maximum
  }
  return true;
}

bool needs_stage2() {
  switch (OP) {
    case GP_OP_variance: return !BWD;
    case GP_OP_layer_norm:
    case GP_OP_rms_norm: return true;
    case GP_OP_softmax:
    case GP_OP_gumbel_softmax:
    case GP_OP_log_softmax: return BWD;
  }
  return false;
}

// Stage 3, layer_norm and rms_norm backward: the sum of (g w) xhat, whose xhat = d / sigma needs
// stage 2's variance. Summing g w d and dividing by sigma afterwards overflowed f32 at a weight
// near 1e38 where the reference's order does not (found by hunt on lavapipe).
bool needs_stage3() { return BWD && (OP == GP_OP_layer_norm || OP == GP_OP_rms_norm); }

// The row's exp(V(j) - m), summed in two parts (stage 1 of every op below the maximum): x, the
// terms below the maximum; y, how many elements equal it (each term exactly 1). So S = y + x and
// rest = S - 1 = (y - 1) + x exactly: log S = log1p(rest) and 1 - p at the maximum = rest / S keep
// their digits in a row its maximum dominates, where S - 1 would cancel. A NaN compares neither
// below nor equal: its term is NaN, which the sums carry (a subgroup maximum may pass it over).
C2 exp_terms(uint j, C m) {
  C v = V(j);
  if (v < m) return C2(m_exp(v - m), K(0.0));
  return v == m ? C2(K(0.0), K(1.0)) : C2(m_nan(), K(0.0));
}
C exp_sum(C2 s1) { return s1.y + s1.x; }
C exp_rest(C2 s1) { return (s1.y - K(1.0)) + s1.x; }

C bce_term(C x, C t) { return max(x, K(0.0)) - x * t + m_log1p(m_exp(-abs(x))); }

// Stage 1: terms summed over the row (two at a time).
C2 stage1(uint j, C m) {
  switch (OP) {
    case GP_OP_sum:
    case GP_OP_mean:
    case GP_OP_variance: return C2(X(j), K(0.0));
    case GP_OP_logsumexp:
    case GP_OP_softmax:
    case GP_OP_gumbel_softmax:
    case GP_OP_cross_entropy:
    case GP_OP_log_softmax: return exp_terms(j, m);
    case GP_OP_layer_norm:
    case GP_OP_rms_norm: return C2(X(j), BWD ? G(j) * TO_C(w_[j]) : K(0.0));
    case ROP_CROSS_ENTROPY_MEAN: return C2(scratch_[j], K(0.0));
    case GP_OP_mse_loss: {
      C d = TO_C(x_[j]) - TO_C(w_[j]);
      return C2(d * d, K(0.0));
    }
    case GP_OP_bce_with_logits: return C2(bce_term(TO_C(x_[j]), TO_C(w_[j])), K(0.0));
    case GP_OP_max: return C2(X(j) == TO_C(y_[row]) ? K(1.0) : K(0.0), K(0.0));
  }
  return C2(K(0.0));
}

// Stage 2: terms that need stage 1 (m: row max, s1: stage-1 sums, mean = s1.x / n).
C2 stage2(uint j, C m, C2 s1) {
  C mean = s1.x / C(pc.n);
  switch (OP) {
    case GP_OP_variance: {
      C d = X(j) - mean;
      return C2(d * d, K(0.0));
    }
    case GP_OP_layer_norm:
    case GP_OP_rms_norm: {
      C d = centred() ? X(j) - mean : X(j);
      return C2(d * d, K(0.0));
    }
    case GP_OP_softmax:
    case GP_OP_gumbel_softmax: return C2(G(j) * m_exp(V(j) - m) / exp_sum(s1), K(0.0));
    case GP_OP_log_softmax: return C2(G(j), K(0.0));
  }
  return C2(K(0.0));
}

// 1 / sigma of a layer_norm or rms_norm row from its stage-2 sum of squares.
C norm_rstd(C2 s2) { return K(1.0) / sqrt(s2.x / C(pc.n) + ATTR(pc.eps_bits, pc.eps_f)); }

// Stage 3's term (needs_stage3).
C stage3(uint j, C2 s1, C2 s2) {
  C mean = centred() ? s1.x / C(pc.n) : K(0.0);
  return (G(j) * TO_C(w_[j])) * ((X(j) - mean) * norm_rstd(s2));
}

void forward_writes(C m, C2 s1, C2 s2) {
  C n = C(pc.n);
  C mean = s1.x / n;
  switch (OP) {
    case GP_OP_sum:
    case GP_OP_mean:
      if (leader()) y_[row] = FROM_C(OP == GP_OP_mean ? mean : s1.x);
      return;
    case GP_OP_max:
      if (leader()) y_[row] = FROM_C(m);
      return;
    case GP_OP_logsumexp:
      if (leader()) y_[row] = FROM_C(m + m_log1p(exp_rest(s1)));
      return;
    case GP_OP_variance:
      if (leader()) y_[row] = FROM_C(s2.x / (n - C(pc.correction)));
      return;
    case GP_OP_softmax:
    case GP_OP_gumbel_softmax:
    case GP_OP_log_softmax: {
      C log_s = m_log1p(exp_rest(s1)), s = exp_sum(s1);
      for (uint j = begin + lid; j < end; j += WG) {
        // `precise`: NVIDIA's compiler otherwise forms v - (m + log_s), whose rounding of m + log_s
        // (u |m|) is 7e-15 at f64 logits of 80, where the result may be 2e-7
        precise C shifted = (V(j) - m) - log_s;
        y_[at(j)] = FROM_C(OP == GP_OP_log_softmax ? shifted : m_exp(V(j) - m) / s);
      }
      return;
    }
    case GP_OP_layer_norm:
    case GP_OP_rms_norm: {
      C rstd = K(1.0) / sqrt(s2.x / n + ATTR(pc.eps_bits, pc.eps_f));
      for (uint j = begin + lid; j < end; j += WG) {
        if (centred()) {
          y_[at(j)] = FROM_C((X(j) - mean) * rstd * TO_C(w_[j]) + TO_C(bias_[j]));
        } else {
          y_[at(j)] = FROM_C(X(j) * rstd * TO_C(w_[j]));
        }
      }
      return;
    }
    case GP_OP_cross_entropy:  // per-row loss into scratch; ROP_CROSS_ENTROPY_MEAN averages
      if (leader()) {
        precise C loss = (m - X(uint(target_[row]))) + m_log1p(exp_rest(s1));  // as log_softmax's
        scratch_[row] = loss;
      }
      return;
    case ROP_CROSS_ENTROPY_MEAN:
    case GP_OP_bce_with_logits:
      if (leader()) y_[0] = FROM_C(mean);
      return;
    case GP_OP_mse_loss:
      if (leader()) y_[0] = FROM_C(pc.mean_reduction != 0u ? mean : s1.x);
      return;
  }
}

void backward_writes(C m, C2 s1, C2 s2, C s3) {
  C n = C(pc.n);
  C mean = s1.x / n;
  switch (OP) {
    case GP_OP_sum:
    case GP_OP_mean: {
      C gv = TO_C(g_[row]) / (OP == GP_OP_mean ? n : K(1.0));
      for (uint j = begin + lid; j < end; j += WG) dx_[at(j)] = FROM_C(gv);
      return;
    }
    case GP_OP_max: {  // tied maxima (outside the catalog's domain) share the cotangent evenly
      C ymax = TO_C(y_[row]), gv = TO_C(g_[row]) / s1.x;
      for (uint j = begin + lid; j < end; j += WG) dx_[at(j)] = FROM_C(X(j) == ymax ? gv : K(0.0));
      return;
    }
    case GP_OP_logsumexp: {
      C gv = TO_C(g_[row]);
      for (uint j = begin + lid; j < end; j += WG) dx_[at(j)] = FROM_C(gv * m_exp(X(j) - m) / exp_sum(s1));
      return;
    }
    case GP_OP_variance: {
      C k = K(2.0) * TO_C(g_[row]) / (n - C(pc.correction));
      for (uint j = begin + lid; j < end; j += WG) dx_[at(j)] = FROM_C(k * (X(j) - mean));
      return;
    }
    case GP_OP_softmax:
    case GP_OP_gumbel_softmax: {  // dv = p (g - sum g p); gumbel: dl = dv / tau
      // 1 / tau applied last, as the reference does: applied to the exponential first it made an
      // intermediate subnormal (exp(v - m) just above 2^-126 halved at tau = 2) where dv is
      // normal, and NVIDIA's driver flushed it (found by hunt on an H200).
      C scale = OP == GP_OP_gumbel_softmax ? K(1.0) / tau() : K(1.0);
      for (uint j = begin + lid; j < end; j += WG)
        dx_[at(j)] = FROM_C(m_exp(V(j) - m) / exp_sum(s1) * (G(j) - s2.x) * scale);
      return;
    }
    case GP_OP_log_softmax:  // dx = g - softmax * sum g
      for (uint j = begin + lid; j < end; j += WG) dx_[at(j)] = FROM_C(G(j) - m_exp(V(j) - m) / exp_sum(s1) * s2.x);
      return;
    case GP_OP_layer_norm:
    case GP_OP_rms_norm: {  // dx = rstd (d - mean d - xhat mean(d xhat)), d = g w (rms_norm: no mean d)
      C rstd = norm_rstd(s2);
      if (!centred()) mean = K(0.0);
      C mean_d = centred() ? s1.y / n : K(0.0), mean_dx = s3 / n;
      for (uint j = begin + lid; j < end; j += WG) {
        C xhat = (X(j) - mean) * rstd;
        dx_[at(j)] = FROM_C(rstd * (G(j) * TO_C(w_[j]) - mean_d - xhat * mean_dx));
      }
      if (leader()) {  // for the dw / db pass
        scratch_[2u * row] = mean;
        scratch_[2u * row + 1u] = rstd;
      }
      return;
    }
    case GP_OP_cross_entropy: {  // dlogits = g / B * (softmax - onehot(target))
      C k = TO_C(g_[0]) / C(pc.outer), s = exp_sum(s1);
      uint t = uint(target_[row]);
      for (uint j = begin + lid; j < end; j += WG) {
        C xj = X(j), p = m_exp(xj - m) / s;
        // at a target holding the maximum, p - 1 = -rest / S (the subtraction would cancel)
        C d = j != t ? p : (xj == m ? -exp_rest(s1) / s : p - K(1.0));
        dx_[at(j)] = FROM_C(k * d);
      }
      return;
    }
    case GP_OP_mse_loss: {
      C k = K(2.0) * TO_C(g_[0]) / (pc.mean_reduction != 0u ? n : K(1.0));
      for (uint j = begin + lid; j < end; j += WG) {
        C d = k * (TO_C(x_[j]) - TO_C(w_[j]));
        dx_[j] = FROM_C(d);
        dw_[j] = FROM_C(-d);
      }
      return;
    }
    case GP_OP_bce_with_logits: {
      C k = TO_C(g_[0]) / n;
      for (uint j = begin + lid; j < end; j += WG) {
        C x = TO_C(x_[j]);
        dx_[j] = FROM_C(k * (m_sigmoid(x) - TO_C(w_[j])));
        dw_[j] = FROM_C(-k * x);
      }
      return;
    }
  }
}

// Where chunk `chunk`'s (dw, db) partials of column `col` sit in scratch_: after the row stats.
uint partial_at(uint chunk, uint col) { return 2u * (pc.n + chunk * pc.inner + col); }

// dw, db partials of one chunk of rows for one tile of columns: (g xhat, g) summed.
void layer_norm_params_tile() {
  ColumnTile tile = column_tile(pc.inner);
  uint chunk = tile.chunk, col = tile.column;
  bool mine = col < pc.inner && chunk < pc.outer;
  C2 s = C2(K(0.0));
  if (mine) {
    uint end = min((chunk + 1u) * pc.chunk_rows, pc.n);
    for (uint r = chunk * pc.chunk_rows + tile.lane; r < end; r += COLUMN_LANES) {
      uint idx = r * pc.inner + col;
      C gv = TO_C(g_[idx]);
      s += C2(gv * (TO_C(x_[idx]) - scratch_[2u * r]) * scratch_[2u * r + 1u], gv);
    }
  }
  s = column_tile_sum2(s);
  if (tile.lane == 0u && mine) {
    scratch_[partial_at(chunk, col)] = s.x;
    scratch_[partial_at(chunk, col) + 1u] = s.y;
  }
}

void layer_norm_params_sum() {
  uint col = row * WG + lid;
  if (col >= pc.inner) return;
  C2 s = C2(K(0.0));
  for (uint c = 0u; c < pc.outer; ++c) s += C2(scratch_[partial_at(c, col)], scratch_[partial_at(c, col) + 1u]);
  dw_[col] = FROM_C(s.x);
  db_[col] = FROM_C(s.y);
}

// A statistic of a split row from its chunks' partials, combined in chunk order.
C combined_max() {
  C r = partials_[row_partial_at(0u, 0u)];
  for (uint c = 1u; c < pc.chunks; ++c) r = max(r, partials_[row_partial_at(c, 0u)]);
  return r;
}
C2 combined_sum(uint k) {
  C2 r = C2(K(0.0));
  for (uint c = 0u; c < pc.chunks; ++c) r += C2(partials_[row_partial_at(c, k)], partials_[row_partial_at(c, k + 1u)]);
  return r;
}
void store_partial(uint k, C2 v) {
  if (lid != 0u) return;
  partials_[row_partial_at(chunk, k)] = v.x;
  partials_[row_partial_at(chunk, k + 1u)] = v.y;
}
bool phase_needed(uint phase) {
  switch (phase) {
    case PHASE_MAX: return needs_max();
    case PHASE_STAGE1: return needs_stage1();
    case PHASE_STAGE2: return needs_stage2();
    case PHASE_STAGE3: return needs_stage3();
  }
  return true;
}

void main() {
  lid = gl_LocalInvocationID.x;
  row = group_linear();  // uniform per group, so barriers are reached by all or none
  switch (OP) {  // the passes that are not rows
    case ROP_LAYER_NORM_PARAMS: layer_norm_params_tile(); return;
    case ROP_LAYER_NORM_PARAMS_SUM: layer_norm_params_sum(); return;
    case GP_OP_bspline_basis: bspline_basis(); return;
  }
  chunk = row % pc.chunks;
  row /= pc.chunks;
  if (row >= pc.outer * pc.inner) return;
  row_base = (row / pc.inner) * pc.n * pc.inner + row % pc.inner;
  row_stride = pc.inner;
  uint span = (pc.n + pc.chunks - 1u) / pc.chunks;
  begin = min(chunk * span, pc.n);
  end = min(begin + span, pc.n);
  // Whole rows run every phase in this one dispatch; a split row's phase P combines the
  // statistics of the phases before it, reduces its own into partials_ and ends.
  bool whole = !split();
  if (!whole && !phase_needed(pc.phase)) return;

  C m = K(0.0);
  C2 s1 = C2(K(0.0)), s2 = C2(K(0.0));
  if (needs_max()) {
    if (!whole && pc.phase > PHASE_MAX) {
      m = combined_max();
    } else {
      C local_max = C(-1.0 / 0.0);
      for (uint j = begin + lid; j < end; j += WG) local_max = max(local_max, V(j));
      m = group_max(local_max);
      if (!whole) {
        store_partial(0u, C2(m, K(0.0)));
        return;
      }
    }
  }
  if (needs_stage1()) {
    if (!whole && pc.phase > PHASE_STAGE1) {
      s1 = combined_sum(2u);
    } else {
      C2 acc = C2(K(0.0));
      for (uint j = begin + lid; j < end; j += WG) acc += stage1(j, m);
      s1 = group_sum2(acc);
      if (!whole) {
        store_partial(2u, s1);
        return;
      }
    }
  }
  if (needs_stage2()) {
    if (!whole && pc.phase > PHASE_STAGE2) {
      s2 = combined_sum(4u);
    } else {
      C2 acc = C2(K(0.0));
      for (uint j = begin + lid; j < end; j += WG) acc += stage2(j, m, s1);
      s2 = group_sum2(acc);
      if (!whole) {
        store_partial(4u, s2);
        return;
      }
    }
  }
  C s3 = K(0.0);
  if (needs_stage3()) {
    if (!whole && pc.phase > PHASE_STAGE3) {
      s3 = combined_sum(6u).x;
    } else {
      C acc = K(0.0);
      for (uint j = begin + lid; j < end; j += WG) acc += stage3(j, s1, s2);
      s3 = group_sum2(C2(acc, K(0.0))).x;
      if (!whole) {
        store_partial(6u, C2(s3, K(0.0)));
        return;
      }
    }
  }
  if (BWD) backward_writes(m, s1, s2, s3);
  else forward_writes(m, s1, s2);
}
