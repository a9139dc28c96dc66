// A persistent cache of what the reference computes slowly: the Tracked bounds of a device profile
// (a primitive's or a node's ReferenceData::bounded, a model's CompositeReference::bounded, a
// training run's probed trajectory) and the reference's own verdicts (its finite-difference
// checks, the oracle's sample). An entry is addressed by its content: a hash of the sources
// that decide the reference's results (kReferenceSourcesHash), what is computed, the subject, the
// bytes of every input and cotangent, and the math profile. A warm run then costs device calls
// and comparisons.
//
// Faults cost time, never results: an entry that is truncated, fails its checksum or comes from
// other sources is recomputed and said so in one line; a folder that cannot be written is said so
// once and the run computes without storing; two runs writing one entry each rename a complete
// file over it (core/atomic_file.hpp). The folder is kept under a size cap by removing the
// entries least recently written.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/math_profile.hpp"
#include "core/tensor.hpp"
#include "harness/check/cache_blob.hpp"
#include "harness/check/phase_clock.hpp"

namespace gp {

struct CacheKey {
  std::uint64_t high = 0, low = 0;
  std::string hex() const;
};

// Builds a key from everything that decides an entry (XXH3-128, streaming).
class CacheKeyBuilder {
 public:
  explicit CacheKeyBuilder(std::string_view what);  // "bounded", "composite-bounded", ...
  ~CacheKeyBuilder();
  CacheKeyBuilder(CacheKeyBuilder&& o) noexcept : state_(std::exchange(o.state_, nullptr)) {}
  CacheKeyBuilder(const CacheKeyBuilder&) = delete;
  CacheKeyBuilder& operator=(const CacheKeyBuilder&) = delete;
  CacheKeyBuilder& operator=(CacheKeyBuilder&&) = delete;
  CacheKeyBuilder& add(std::string_view text);
  CacheKeyBuilder& add(std::uint64_t v);
  CacheKeyBuilder& add(const HostTensor& t);      // dtype, shape and bytes
  CacheKeyBuilder& add(const ref::RefTensor& t);  // shape, values and their errors
  CacheKeyBuilder& add(const MathProfile* profile, bool flush);
  CacheKey key() const;

 private:
  void* state_;  // XXH3_state_t
};

class ReferenceCache {
 public:
  // `dir`: the folder of entries (created when missing); `cap_bytes`: its size limit.
  ReferenceCache(std::filesystem::path dir, std::uint64_t cap_bytes);

  // The entry's payload, or nothing (absent, or faulty: said on stderr, then recomputed).
  std::optional<std::string> load(const CacheKey& key);
  void store(const CacheKey& key, std::string_view payload);
  // An entry whose payload did not decode: said, and overwritten by the caller's store.
  void reject(const CacheKey& key, const std::string& why);

  struct Counts {
    std::int64_t hits = 0, misses = 0, stored = 0, rejected = 0;
  };
  Counts counts() const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path path_of(const CacheKey& key) const;
  void trim();
  std::filesystem::path dir_;
  std::uint64_t cap_;
  std::atomic<std::int64_t> hits_{0}, misses_{0}, stored_{0}, rejected_{0};
  std::atomic<std::uint64_t> written_since_trim_{0};
  std::atomic<bool> unwritable_said_{false};
  std::mutex trim_mutex_;
};

// The default folder: GRADPARITY_CACHE_DIR or the configured cache folder, else
// $XDG_CACHE_HOME/gradparity, else ~/.cache/gradparity; entries go to its reference/ subfolder.
std::filesystem::path reference_cache_dir(const std::string& configured);
inline constexpr std::uint64_t kDefaultReferenceCacheCap = std::uint64_t{2} << 30;  // 2 GiB

// `compute()` once per key: read back from the cache when it holds the entry, else computed and
// stored. Without a cache, computed. Either way the profile counts it in `phase` (the bounds, or
// the reference's own checks). `read`, when given, says whether the value came from the cache.
template <class T>
T cached(ReferenceCache* cache, const CacheKeyBuilder& key, Phase phase, const std::function<T()>& compute,
         bool* read = nullptr) {
  PhaseTimer timer(phase);
  if (read) *read = false;
  if (!cache) return compute();
  const CacheKey k = key.key();
  if (std::optional<std::string> bytes = cache->load(k)) {
    try {
      BlobReader r(*bytes);
      T value;
      decode(r, value);
      r.expect_end();
      if (read) *read = true;
      return value;
    } catch (const BlobError& e) {
      cache->reject(k, e.what());
    }
  }
  T value = compute();
  BlobWriter w;
  encode(w, value);
  cache->store(k, w.bytes());
  return value;
}

}  // namespace gp
