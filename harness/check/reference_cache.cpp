#include "harness/check/reference_cache.hpp"

#include <fmt/core.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/atomic_file.hpp"
#include "reference_sources_hash.hpp"

namespace gp {

namespace fs = std::filesystem;

namespace {

// magic | sources hash (64 hex digits) | key (16 bytes) | payload size | compressed size |
// the payload compressed by zstd | XXH3-64 of everything before it. Bounds compress well (many
// zero error terms, repeated exponents): the full default run's 2.5 GB of entries take 0.9 GB.
constexpr std::string_view kMagic = "GPREFC02";
constexpr std::size_t kSourcesSize = 64;
constexpr std::size_t kHeaderSize = kMagic.size() + kSourcesSize + 16 + 8 + 8;
constexpr int kZstdLevel = 1;  // the fastest: an entry is written once and read on every run

std::uint64_t read_u64(const char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

void append_u64(std::string& s, std::uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  s.append(b, 8);
}

XXH3_state_t* state(void* p) { return static_cast<XXH3_state_t*>(p); }

}  // namespace

std::string CacheKey::hex() const { return fmt::format("{:016x}{:016x}", high, low); }

CacheKeyBuilder::CacheKeyBuilder(std::string_view what) : state_(XXH3_createState()) {
  XXH3_128bits_reset(state(state_));
  add(std::string_view(kReferenceSourcesHash));
  add(what);
}

CacheKeyBuilder::~CacheKeyBuilder() {
  if (state_) XXH3_freeState(state(state_));
}

CacheKeyBuilder& CacheKeyBuilder::add(std::string_view text) {
  add(static_cast<std::uint64_t>(text.size()));  // "ab" + "c" differs from "a" + "bc"
  XXH3_128bits_update(state(state_), text.data(), text.size());
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add(std::uint64_t v) {
  XXH3_128bits_update(state(state_), &v, sizeof v);
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add(const HostTensor& t) {
  add(static_cast<std::uint64_t>(t.dtype()));
  add(static_cast<std::uint64_t>(t.shape().rank()));
  for (int i = 0; i < t.shape().rank(); ++i) add(static_cast<std::uint64_t>(t.shape()[i]));
  add(static_cast<std::uint64_t>(t.bytes()));
  XXH3_128bits_update(state(state_), t.data(), t.bytes());
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add(const ref::RefTensor& t) {
  BlobWriter w;  // shape, values and errors, 10 significant bytes a value
  encode(w, t);
  XXH3_128bits_update(state(state_), w.bytes().data(), w.bytes().size());
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::add(const MathProfile* profile, bool flush) {
  add(profile ? profile->source() : std::string("long double reference"));
  return add(std::uint64_t{flush});
}

CacheKeyBuilder& CacheKeyBuilder::add_any_profile(bool flush) {
  add(std::string_view("any device profile"));
  return add(std::uint64_t{flush});
}

CacheKeyBuilder& CacheKeyBuilder::add_any_device() {
  return add(std::string_view("any device profile, either flush mode"));
}

CacheKeyBuilder CacheKeyBuilder::copy() const {
  CacheKeyBuilder c;
  c.state_ = XXH3_createState();
  XXH3_copyState(state(c.state_), state(state_));
  return c;
}

CacheKey CacheKeyBuilder::key() const {
  const XXH128_hash_t h = XXH3_128bits_digest(state(state_));
  return {h.high64, h.low64};
}

fs::path reference_cache_dir(const std::string& configured) {
  fs::path root;
  if (!configured.empty()) {
    root = configured;
  } else if (const char* env = std::getenv("GRADPARITY_CACHE_DIR"); env && *env) {
    root = env;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    root = fs::path(xdg) / "gradparity";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    root = fs::path(home) / ".cache" / "gradparity";
  } else {
    root = ".gradparity-cache";
  }
  return root / "reference";
}

ReferenceCache::ReferenceCache(fs::path dir, std::uint64_t cap_bytes) : dir_(std::move(dir)), cap_(cap_bytes) {}

fs::path ReferenceCache::path_of(const CacheKey& key) const {
  const std::string hex = key.hex();
  return dir_ / hex.substr(0, 2) / (hex.substr(2) + ".bin");
}

std::optional<std::string> ReferenceCache::load(const CacheKey& key, Tally tally) {
  const fs::path path = path_of(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (tally == Tally::hit_or_miss) ++misses_;
    return std::nullopt;
  }
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fault = [&](const std::string& why) -> std::optional<std::string> {
    reject(key, why);
    return std::nullopt;
  };
  if (file.size() < kHeaderSize + 8) return fault("truncated (" + std::to_string(file.size()) + " bytes)");
  if (std::string_view(file).substr(0, kMagic.size()) != kMagic) return fault("not a reference cache entry");
  const std::string_view sources = std::string_view(file).substr(kMagic.size(), kSourcesSize);
  if (sources != kReferenceSourcesHash)
    return fault("written by a build of other sources (" + std::string(sources.substr(0, 12)) + "…)");
  const char* k = file.data() + kMagic.size() + kSourcesSize;
  if (read_u64(k) != key.high || read_u64(k + 8) != key.low) return fault("holds another key");
  const std::uint64_t size = read_u64(k + 16), packed = read_u64(k + 24);
  if (packed != file.size() - kHeaderSize - 8) return fault("truncated (its size does not match its header)");
  if (XXH3_64bits(file.data(), file.size() - 8) != read_u64(file.data() + file.size() - 8))
    return fault("checksum mismatch");
  std::string payload(size, '\0');
  const std::size_t n = ZSTD_decompress(payload.data(), payload.size(), file.data() + kHeaderSize, packed);
  if (ZSTD_isError(n) || n != size) return fault("does not decompress");
  std::error_code ec;  // a read-only folder keeps its times: the entry is still good
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
  if (tally != Tally::nothing) ++hits_;
  return payload;
}

void ReferenceCache::reject(const CacheKey& key, const std::string& why) {
  ++rejected_;
  fmt::print(stderr, "gradparity: reference cache entry {}: {}; recomputed\n", path_of(key).string(), why);
}

void ReferenceCache::store(const CacheKey& key, std::string_view payload) {
  std::string file(kMagic);
  file.append(kReferenceSourcesHash, kSourcesSize);
  append_u64(file, key.high);
  append_u64(file, key.low);
  append_u64(file, payload.size());
  std::string packed(ZSTD_compressBound(payload.size()), '\0');
  const std::size_t n = ZSTD_compress(packed.data(), packed.size(), payload.data(), payload.size(), kZstdLevel);
  if (ZSTD_isError(n)) return;  // only for sizes beyond any entry's
  append_u64(file, n);
  file.append(packed.data(), n);
  append_u64(file, XXH3_64bits(file.data(), file.size()));
  try {
    write_file_atomically(path_of(key), file);
  } catch (const std::exception& e) {
    if (!unwritable_said_.exchange(true))
      fmt::print(stderr, "gradparity: the reference cache cannot store entries ({}): results are computed, not kept\n",
                 e.what());
    return;
  }
  ++stored_;
  if ((written_since_trim_ += file.size()) > cap_ / 16) trim();
}

// Removes the entries least recently used until the folder holds 3/4 of the cap.
void ReferenceCache::trim() {
  std::unique_lock lock(trim_mutex_, std::try_to_lock);
  if (!lock) return;  // another thread trims now
  written_since_trim_ = 0;
  struct Entry {
    fs::file_time_type time;
    std::uintmax_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  std::uintmax_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".bin") continue;
    const std::uintmax_t size = it->file_size(ec);
    entries.push_back({it->last_write_time(ec), size, it->path()});
    total += size;
  }
  if (total <= cap_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  for (const Entry& e : entries) {
    if (total <= cap_ / 4 * 3) break;
    if (fs::remove(e.path, ec)) total -= e.size;
  }
}

ReferenceCache::Counts ReferenceCache::counts() const { return {hits_, misses_, stored_, rejected_}; }

}  // namespace gp
