// Operation codes passed to shaders in push constants. Included by the GLSL shaders and by the
// C++ dispatch code, so both sides read ONE list (plain #defines are valid in both languages).
#ifndef GP_VK_OP_CODES_H
#define GP_VK_OP_CODES_H

// The default of the specialization constants SPEC_OP and SPEC_MODE (common.glsl): read the op
// and mode from push constants.
#define SPEC_FROM_PUSH 0xFFFFFFFFu

// Elements per invocation of the elementwise shaders (unary, binary, copy): the recorder sizes
// their grids by it. common.glsl's PICK assumes 4.
#define ELEMS_PER_INVOCATION 4u

// unary.comp: elementwise y = f(x) and dx = g * f'(x)
#define UOP_NEG 0u
#define UOP_SQUARE 1u
#define UOP_RECIPROCAL 2u
#define UOP_ABS 3u
#define UOP_EXP 4u
#define UOP_EXPM1 5u
#define UOP_LOG 6u
#define UOP_LOG1P 7u
#define UOP_SQRT 8u
#define UOP_RSQRT 9u
#define UOP_POW_SCALAR 10u
#define UOP_SIN 11u
#define UOP_COS 12u
#define UOP_TANH 13u
#define UOP_SIGMOID 14u
#define UOP_SOFTPLUS 15u
#define UOP_SILU 16u
#define UOP_RELU 17u
#define UOP_LEAKY_RELU 18u
#define UOP_ELU 19u
#define UOP_GELU_ERF 20u
#define UOP_GELU_TANH 21u
#define UOP_STE_ROUND 22u
#define UOP_STE_HARDTANH_GATE 23u

// binary.comp: z = f(a, b) with broadcasting; gradients summed over broadcast dimensions
#define BOP_ADD 0u
#define BOP_SUB 1u
#define BOP_MUL 2u
#define BOP_DIV 3u
#define BOP_POW 4u
#define BOP_MAXIMUM 5u
#define BOP_MINIMUM 6u
// binary.comp modes
#define BMODE_FORWARD 0u
#define BMODE_GRAD_PER_THREAD 1u  // one invocation per gradient element, loops over its terms
#define BMODE_GRAD_PER_GROUP 2u   // one work group per gradient element, shared-memory sum
#define BMODE_GRAD_COLUMNS 3u     // innermost dim kept: a group sums a chunk of terms for a tile
                                  // of COLUMN_TILE neighbours, so its loads are coalesced
#define BMODE_SUM_CHUNKS 4u       // adds the chunk partials of BMODE_GRAD_COLUMNS, in order
#define COLUMN_TILE 32u

// rowwise.comp: one work group per row of the [outer, n, inner] view
#define ROP_SUM 0u
#define ROP_MEAN 1u
#define ROP_MAX 2u
#define ROP_LOGSUMEXP 3u
#define ROP_VARIANCE 4u
#define ROP_SOFTMAX 5u
#define ROP_LOG_SOFTMAX 6u
#define ROP_GUMBEL_SOFTMAX 7u
#define ROP_LAYER_NORM 8u
#define ROP_LAYER_NORM_PARAMS 9u  // backward only: dw, db partials over column tiles x row chunks
#define ROP_CROSS_ENTROPY_ROWS 10u // forward: per-row loss; backward: dlogits
#define ROP_MSE 11u
#define ROP_BCE 12u
#define ROP_CROSS_ENTROPY_MEAN 13u // forward: mean of the per-row losses in scratch
#define ROP_LAYER_NORM_PARAMS_SUM 14u  // backward only: dw, db from the chunk partials

// copy.comp modes
#define CMODE_COPY 0u
#define CMODE_FILL_ZERO 1u
#define CMODE_CONTIGUOUS 2u  // both sides contiguous: no index arithmetic
#define CMODE_TRANSPOSE 3u   // [b, r, c] -> [b, c, r] through shared-memory tiles
#define TRANSPOSE_TILE 32u

#endif
