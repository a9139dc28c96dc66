// reshape as a buffer copy (clEnqueueCopyBuffer), forward and VJP: not CLBlast's, but the copy
// that `gradparity bench` times as the device's bandwidth (docs/bench.md), without which a
// plugin's GEMM rows get no roofline position.
#pragma once

#include <gradparity/plugin.h>

#include <string>

#include "opencl.hpp"

namespace gp_clblast {

// Whether the call is a reshape this plugin runs (as many elements out as in); false with `why`
// filled for a reshape it refuses, false and `why` empty for another op.
bool copies(const gp_op_call& call, std::string& why);

void copy_forward(gp_queue& queue, const gp_op_call& call, const gp_buffer& input, gp_buffer& out);
void copy_vjp(gp_queue& queue, const gp_op_call& call, const gp_buffer& dout, gp_buffer* grad);

}  // namespace gp_clblast
