// A persistent cache of what the reference computes slowly: the Tracked bounds of a device profile
// (a primitive's or a node's ReferenceData::bounded, a model's CompositeReference::bounded, a
// training run's probed trajectory), the reference's own verdicts (its finite-difference
// checks, the oracle's sample) and the large tier's complete checks, keyed by the device's bytes
// as well (harness/large/cached_complete_check.hpp). An entry is addressed by its content: a hash of the sources
// that decide the reference's results (kReferenceSourcesHash), what is computed, the subject, the
// bytes of every input and cotangent, and the math profile, or none where the evaluation read no
// budget of its profile (cached_bounds). A warm run then costs device calls and comparisons.
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
#include "reference/tracked.hpp"

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
  // In place of a profile: what every device profile of this flush mode shares (cached_bounds).
  CacheKeyBuilder& add_any_profile(bool flush);
  // In place of a profile and a flush mode: what every device shares.
  CacheKeyBuilder& add_any_device();
  CacheKeyBuilder copy() const;  // the same state, to go on two ways
  CacheKey key() const;

 private:
  CacheKeyBuilder() = default;
  void* state_ = nullptr;  // XXH3_state_t
};

class ReferenceCache {
 public:
  // `dir`: the folder of entries (created when missing); `cap_bytes`: its size limit.
  ReferenceCache(std::filesystem::path dir, std::uint64_t cap_bytes);

  // What a look-up adds to counts(): a read as a hit and an absent entry as a miss; only a read
  // (a look-up that has another key to try, cached_bounds); nothing (a part of an entry's
  // computation, a model's node evaluation: the counts are the entries a run reads or computes).
  enum class Tally { hit_or_miss, hit_only, nothing };
  // The entry's payload, or nothing (absent, or faulty: said on stderr, then recomputed).
  std::optional<std::string> load(const CacheKey& key, Tally tally = Tally::hit_or_miss);
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

// The entry of `key` decoded, or nothing (absent or faulty: a faulty one is said and rejected).
template <class T>
std::optional<T> read_entry(ReferenceCache& cache, const CacheKey& key,
                            ReferenceCache::Tally tally = ReferenceCache::Tally::hit_or_miss) {
  std::optional<std::string> bytes = cache.load(key, tally);
  if (!bytes) return std::nullopt;
  try {
    BlobReader r(*bytes);
    T value;
    decode(r, value);
    r.expect_end();
    return value;
  } catch (const BlobError& e) {
    cache.reject(key, e.what());
    return std::nullopt;
  }
}

template <class T>
void store_entry(ReferenceCache& cache, const CacheKey& key, const T& value) {
  BlobWriter w;
  encode(w, value);
  cache.store(key, w.bytes());
}

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
  if (std::optional<T> value = read_entry<T>(*cache, k)) {
    if (read) *read = true;
    return std::move(*value);
  }
  T value = compute();
  store_entry(*cache, k, value);
  return value;
}

// Bounds under a device profile, `key` naming all else that decides them. An evaluation that read
// no budget of its profile (ref::ProfileReads) is the same under every profile of its flush mode,
// and one that met no value where flushing matters (ref::FlushReads) the same under both flush
// modes: it is stored under a key that names no profile (and no flush mode), where every device's
// look-up finds it first, so a matmul's bounds are computed once for cpu, OpenCL and Vulkan
// instead of three times. Bit for bit what each device would compute. `reads_profile`, when
// given, says whether the value read its profile; an entry of the profile's own (or of its flush
// mode's) read back counts as such a read (ref::note_profile_read, ref::note_flush_read) for an
// evaluation that encloses this one.
template <class T>
T cached_bounds(ReferenceCache* cache, CacheKeyBuilder& key, const MathProfile* profile, bool flush,
                const std::function<T()>& compute, bool* reads_profile = nullptr) {
  if (!profile) {  // the long-double reference's own bounds
    if (reads_profile) *reads_profile = false;
    return cached<T>(cache, key.add(profile, flush), Phase::bounds, compute);
  }
  PhaseTimer timer(Phase::bounds);
  const ref::ProfileReads reads;
  const ref::FlushReads flush_reads;
  auto finish = [&](T value) {
    if (reads_profile) *reads_profile = reads.any();
    return value;
  };
  if (!cache) return finish(compute());
  CacheKeyBuilder any_mode = key.copy(), any_profile = key.copy();
  const CacheKey every_device = any_mode.add_any_device().key();
  const CacheKey shared = any_profile.add_any_profile(flush).key();
  const CacheKey own = key.add(profile, flush).key();
  if (std::optional<T> value = read_entry<T>(*cache, every_device, ReferenceCache::Tally::hit_only))
    return finish(std::move(*value));
  if (std::optional<T> value = read_entry<T>(*cache, shared, ReferenceCache::Tally::hit_only)) {
    ref::note_flush_read();
    return finish(std::move(*value));
  }
  if (std::optional<T> value = read_entry<T>(*cache, own)) {
    ref::note_profile_read();
    ref::note_flush_read();
    return finish(std::move(*value));
  }
  T value = compute();
  store_entry(*cache, reads.any() ? own : flush_reads.any() ? shared : every_device, value);
  return finish(std::move(value));
}

}  // namespace gp
