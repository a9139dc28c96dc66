// The plugin's arithmetic probe (ABI version 2, docs/bench.md): the device's multiply-add rate,
// measured with chains of OpenCL `fma`, the arithmetic CLBlast's GEMM kernels compile to, on the
// plugin's own context and queue.
#pragma once

#include <gradparity/plugin.h>

#include <cstdint>

#include "opencl.hpp"

namespace gp_clblast {

// Enqueues `steps` multiply-adds per element of `out` (eight independent chains each) on `queue`,
// the kernels built on the first call (a bench run calls the probe once before timing it); false
// for a dtype the device has no probe for.
bool enqueue_probe(gp_queue& queue, gp_buffer& out, gp_dtype dtype, std::int64_t elements, std::int32_t steps);

}  // namespace gp_clblast
