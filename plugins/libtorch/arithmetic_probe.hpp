// The ABI's arithmetic probe (arithmetic_probe.cpp), declared apart from torch_ops.hpp so that its
// unit parses no ATen header: ATen's were 8 of that unit's 9 seconds of compile on 2 cores, and
// ctest plugin/libtorch compiles it in every CI run.
#pragma once

#include <gradparity/plugin.h>

#include <cstdint>

namespace gp_libtorch {

// The probe's multiply-add chains into `out`; false for a dtype it has none for.
bool run_arithmetic_probe(void* out, gp_dtype dtype, int64_t elements, int32_t steps);

}  // namespace gp_libtorch
