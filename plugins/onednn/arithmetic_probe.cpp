// The ABI's arithmetic probe (docs/bench.md): gradparity/host_fma_probe.hpp's chains, compiled
// for the host's widest vector instructions as oneDNN's JIT picks them, on one OpenMP thread per
// core: oneDNN's own runtime, whose workers spin between primitives (threads of our own beside
// them read half the rate on two cores: 125 against 209 GFLOP/s with OMP_WAIT_POLICY=passive).
// Its own source: it compiles at -O3 whatever the build type (CMakeLists.txt).
#include <omp.h>

#include <gradparity/host_fma_probe.hpp>
#include <thread>

#include "onednn_ops.hpp"

namespace gp_onednn {

bool run_arithmetic_probe(void* out, gp_dtype dtype, int64_t elements, int32_t steps) {
  namespace probe = gradparity_host_probe;
  if (!probe::has_probe(dtype)) return false;
  const int workers = static_cast<int>(probe::useful_workers(elements, std::thread::hardware_concurrency()));
#pragma omp parallel for num_threads(workers)
  for (int w = 0; w < workers; ++w) probe::run_range(out, dtype, probe::range_of(elements, workers, w), steps);
  return true;
}

}  // namespace gp_onednn
