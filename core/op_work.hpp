// What one call of an op moves and computes, from the catalog: the bytes its tensors hold and
// the floating-point operations of its arithmetic. Speed figures divide these by a measured time
// (GB/s, GFLOP/s: docs/scale.md, "Speed"), so that a report reads how close a kernel comes to the
// device's limits and not only how long it took.
//
// Bytes count each tensor the call must touch once, at its storage size: a lower bound of the
// traffic (a kernel that reads an input twice moves more), so a figure never flatters a kernel.
//   forward:  every input read, the output written;
//   backward: the cotangent read, every gradient written, and the inputs read where the
//             vector-Jacobian product needs their values (not for ops whose VJP is linear in the
//             cotangent alone: neg, add, sub, sum, mean and the layout ops).
// Operations are counted where they are the kernel's limit, the contractions: 2mnk for a
// [m,k]·[k,n] product (per batch), the backward twice that (dA and dB); linear adds its bias.
// Other ops count 0: bandwidth is their limit, and their per-element arithmetic (an exp, a
// division) has no agreed operation count.
#pragma once

#include <cstdint>

#include "core/op.hpp"

namespace gp {

struct CallWork {
  std::int64_t bytes = 0;
  std::int64_t flops = 0;
};

CallWork forward_work(const OpCall& call);
CallWork backward_work(const OpCall& call);

}  // namespace gp
