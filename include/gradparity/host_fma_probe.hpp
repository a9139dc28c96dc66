/* The plugin ABI's arithmetic probe (gradparity/plugin.h, `arithmetic_probe`) for plugins of
 * CPU libraries: optional, C++17, header-only, nothing to link. A CPU library's kernels are built
 * for the host's widest vector instructions (oneDNN's JIT, ATen's CPU-capability dispatch), so
 * the probe's loop is compiled once per instruction set and the host's own is picked at load
 * time (GCC's target_clones): a loop built for generic x86-64 would time SSE2, a quarter of what
 * those kernels reach. It runs on every core the host reports: the ceiling is the CPU's, so a
 * library that computes on fewer threads (ATen's intra-op pool, a BLAS's own) shows as a fraction
 * of it.
 *
 * Each element gets kChains independent chains of x -> 0.999999 x + 1e-6, `steps` multiply-adds
 * in all, whose ends are summed into it.
 *
 * The multiply-adds fuse and the chains stay in vector registers only when the including source
 * compiles with -O3 -ffp-contract=fast (set on that one source, whatever the build type). */
#ifndef GRADPARITY_HOST_FMA_PROBE_HPP
#define GRADPARITY_HOST_FMA_PROBE_HPP

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "gradparity/plugin.h"

namespace gradparity_host_probe {

constexpr int kChains = 8;
constexpr int64_t kLanes = 16;  // elements per step: one AVX-512 register of f32

// Elements [first, end) of worker `w` of `workers`: whole vectors to each but the last.
struct Range {
  int64_t first, end;
};
inline Range range_of(int64_t elements, int64_t workers, int64_t w) {
  const int64_t share = (elements / workers + kLanes - 1) / kLanes * kLanes;
  const int64_t first = std::min(elements, w * share);
  return {first, w + 1 == workers ? elements : std::min(elements, first + share)};
}
// The most workers that each get a vector's worth.
inline int64_t useful_workers(int64_t elements, int64_t threads) {
  return std::clamp<int64_t>(threads, 1, std::max<int64_t>(1, (elements + kLanes - 1) / kLanes));
}

template <class T>
[[gnu::always_inline]] inline void chains(T* out, int64_t first, int64_t end, int32_t rounds) {
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

// Internal linkage: each including source gets its own clones and resolver.
[[gnu::target_clones("avx512f", "avx2", "default"), maybe_unused]] static void chains_f32(float* out, int64_t first,
                                                                                          int64_t end, int32_t rounds) {
  chains(out, first, end, rounds);
}
[[gnu::target_clones("avx512f", "avx2", "default"), maybe_unused]] static void chains_f64(double* out, int64_t first,
                                                                                          int64_t end, int32_t rounds) {
  chains(out, first, end, rounds);
}

// Whether the probe has chains for `dtype` (f32, f64; not f16, bf16: the ABI's GP_UNSUPPORTED).
inline bool has_probe(gp_dtype dtype) { return dtype == GP_DTYPE_F32 || dtype == GP_DTYPE_F64; }

// The chains over elements [r.first, r.end) of `out`, for a plugin that runs them on its
// library's own threads (an OpenMP runtime whose workers spin between calls).
[[maybe_unused]] static void run_range(void* out, gp_dtype dtype, Range r, int32_t steps) {
  const int32_t rounds = steps / kChains;
  if (dtype == GP_DTYPE_F32)
    chains_f32(static_cast<float*>(out), r.first, r.end, rounds);
  else if (dtype == GP_DTYPE_F64)
    chains_f64(static_cast<double*>(out), r.first, r.end, rounds);
}

// The probe into `out` on one thread of its own per core; false without chains for `dtype`.
[[maybe_unused]] static bool run_on_every_core(void* out, gp_dtype dtype, int64_t elements, int32_t steps) {
  if (!has_probe(dtype)) return false;
  const int64_t workers = useful_workers(elements, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w)
    threads.emplace_back([=] { run_range(out, dtype, range_of(elements, workers, w), steps); });
  run_range(out, dtype, range_of(elements, workers, 0), steps);
  for (std::thread& t : threads) t.join();
  return true;
}

}  // namespace gradparity_host_probe

#endif
