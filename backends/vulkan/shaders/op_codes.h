// Codes passed to shaders in push constants, beyond the catalog's op codes (gp_op_codes.h,
// generated from core/op_list.hpp): the shaders' own modes. Included by the GLSL shaders and by
// the C++ dispatch code, so both sides read one list (plain #defines are valid in both).
#ifndef GP_VK_OP_CODES_H
#define GP_VK_OP_CODES_H

#include "gp_op_codes.h"

// The default of the specialization constants SPEC_OP and SPEC_MODE (common.glsl): read the op
// and mode from push constants.
#define SPEC_FROM_PUSH 0xFFFFFFFFu

// Elements per invocation of the elementwise shaders (unary, binary, copy): the recorder sizes
// their grids by it. common.glsl's PICK assumes 4.
#define ELEMS_PER_INVOCATION 4u

// binary.comp modes
#define BMODE_FORWARD 0u
#define BMODE_GRAD_PER_THREAD 1u  // one invocation per gradient element, loops over its terms
#define BMODE_GRAD_PER_GROUP 2u   // one work group per gradient element, shared-memory sum
// BMODE_GRAD_COLUMNS: innermost dim kept: a group sums a chunk of terms for a tile of
// COLUMN_TILE neighbours, so its loads are coalesced.
#define BMODE_GRAD_COLUMNS 3u
#define BMODE_SUM_CHUNKS 4u  // adds the chunk partials of BMODE_GRAD_COLUMNS, in order
// Neither input broadcast: element i of a, b, g and the results, no index arithmetic (unravel4's
// divisions made a same-shape add compute-bound on a GPU); the backward writes both gradients in
// one pass, reading g once.
#define BMODE_FORWARD_SAME 5u
#define BMODE_GRAD_SAME 6u
#define COLUMN_TILE 32u

// rowwise.comp: one work group per row of the [outer, n, inner] view. The op codes of the
// reduction, rowwise and loss families (GP_OP_*) select what it computes; its passes that are
// not ops themselves take the codes after the catalog's.
#define ROP_LAYER_NORM_PARAMS (GP_OP_COUNT + 0u)      // backward only: dw, db partials over column tiles x row chunks
#define ROP_CROSS_ENTROPY_MEAN (GP_OP_COUNT + 1u)     // forward: mean of the per-row losses in scratch
#define ROP_LAYER_NORM_PARAMS_SUM (GP_OP_COUNT + 2u)  // backward only: dw, db from the chunk partials

// layout.comp modes (copies of every kind)
#define CMODE_COPY 0u
#define CMODE_FILL_ZERO 1u
#define CMODE_CONTIGUOUS 2u  // both sides contiguous: no index arithmetic
#define CMODE_TRANSPOSE 3u   // [b, r, c] -> [b, c, r] through shared-memory tiles
#define TRANSPOSE_TILE 32u

// log_matmul_exp.comp modes
#define LMODE_FORWARD 0u
#define LMODE_GRAD_A 1u
#define LMODE_GRAD_B 2u
#define LMODE_STATS 3u

// gru_cell.comp modes: 0..5 the gradient of that input (x, h, W_ih, W_hh, b_ih, b_hh) from the
// gate gradients of GRU_MODE_GATES, GRU_GATE_VALUES per unit
#define GRU_MODE_FORWARD 6u
#define GRU_MODE_GATES 7u
#define GRU_GATE_VALUES 7u

#endif
