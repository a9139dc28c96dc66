// The ABI's arithmetic probe (docs/bench.md): for each element, eight independent chains of
// x -> 0.999999 x + 1e-6 that make `steps` multiply-adds in all, summed into the element, on every
// core of the host. oneDNN's kernels are generated at run time for the host's widest vector
// instructions (AVX-512 where it has them), so the probe is compiled once per instruction set and
// the host's own is picked at load time (GCC's target_clones): a loop built for the generic
// x86-64 target would time SSE2, a quarter of what oneDNN's GEMMs can reach.
#include <algorithm>
#include <thread>
#include <vector>

#include "onednn_ops.hpp"

namespace gp_onednn {
namespace {

constexpr int kChains = 8;
constexpr int64_t kLanes = 16;  // elements per step: one AVX-512 register of f32

// Elements [first, end): `kLanes` at a time, so that each chain's multiply-adds run in vector
// registers, the chains independent of each other.
template <class T>
[[gnu::always_inline]] inline void probe_elements(T* out, int64_t first, int64_t end, int32_t rounds) {
  const T a = T(0.999999), b = T(1e-6);
  for (int64_t i = first; i < end; i += kLanes) {
    const int64_t lanes = std::min(kLanes, end - i);
    T x[kChains][kLanes];
    for (int c = 0; c < kChains; ++c)
      for (int64_t l = 0; l < kLanes; ++l) x[c][l] = T(i + l + c);
    for (int32_t r = 0; r < rounds; ++r)
      for (int c = 0; c < kChains; ++c)
        for (int64_t l = 0; l < kLanes; ++l) x[c][l] = a * x[c][l] + b;
    for (int64_t l = 0; l < lanes; ++l) {
      T sum = 0;
      for (int c = 0; c < kChains; ++c) sum += x[c][l];
      out[i + l] = sum;
    }
  }
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void probe_f32(float* out, int64_t first, int64_t end,
                                                                    int32_t rounds) {
  probe_elements(out, first, end, rounds);
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void probe_f64(double* out, int64_t first, int64_t end,
                                                                    int32_t rounds) {
  probe_elements(out, first, end, rounds);
}

}  // namespace

bool run_arithmetic_probe(void* out, gp_dtype dtype, int64_t elements, int32_t steps) {
  if (dtype != GP_DTYPE_F32 && dtype != GP_DTYPE_F64) return false;
  if (elements <= 0) return true;
  const int32_t rounds = steps / kChains;
  const int64_t workers = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, (elements + kLanes - 1) / kLanes);
  // Whole vectors to each thread but the last.
  const int64_t share = (elements / workers + kLanes - 1) / kLanes * kLanes;
  auto work = [&](int64_t w) {
    const int64_t first = std::min(elements, w * share),
                  end = w + 1 == workers ? elements : std::min(elements, first + share);
    if (dtype == GP_DTYPE_F32)
      probe_f32(static_cast<float*>(out), first, end, rounds);
    else
      probe_f64(static_cast<double*>(out), first, end, rounds);
  };
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w) threads.emplace_back(work, w);
  work(0);
  for (std::thread& t : threads) t.join();
  return true;
}

}  // namespace gp_onednn
