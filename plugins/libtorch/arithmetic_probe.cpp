// The ABI's arithmetic probe (docs/bench.md): gradparity/host_fma_probe.hpp's chains on every
// core, compiled for the host's widest vector instructions as ATen's CPU-capability dispatch
// picks them for its kernels. On every core, not ATen's intra-op threads: its GEMMs run on the
// BLAS's own threads, and a pool smaller than the CPU is what the fractions should show. Its own
// unit, outside the unity build: it compiles at -O3 whatever the build type (CMakeLists.txt).
#include "arithmetic_probe.hpp"

#include <gradparity/host_fma_probe.hpp>

namespace gp_libtorch {

bool run_arithmetic_probe(void* out, gp_dtype dtype, int64_t elements, int32_t steps) {
  return gradparity_host_probe::run_on_every_core(out, dtype, elements, steps);
}

}  // namespace gp_libtorch
