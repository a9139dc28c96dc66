// matmul and linear, forward and VJP, as CLBlast GEMMs (and one GEMV) on the call's queue.
//   matmul  C = A B         dA = dC Bᵀ,  dB = Aᵀ dC                 (batched: one GEMM per batch)
//   linear  Y = X Wᵀ + b    dX = dY W,   dW = dYᵀ X,   db = dYᵀ 1
// The bias goes through CLBlast too: Y = 1·bᵀ (a GEMM of inner size 1, exact) then Y += X Wᵀ
// (beta = 1), so every element is the dot product plus the bias with the roundings of one sum.
#pragma once

#include <gradparity/plugin.h>

#include "opencl.hpp"

namespace gp_clblast {

// The ops this plugin runs, and the shapes it accepts: matmul [m,k]·[k,n] or [B,m,k]·[B,k,n],
// linear x[m,k], W[n,k], b[n]. False with `why` filled for anything else.
bool runs(const gp_op_call& call, std::string& why);

void forward(gp_queue& queue, const gp_op_call& call, const gp_buffer* const* inputs, gp_buffer& out);
void vjp(gp_queue& queue, const gp_op_call& call, const gp_buffer* const* inputs, const gp_buffer& dout,
         gp_buffer* const* grads);

}  // namespace gp_clblast
