#include "backends/opencl/program_cache.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backends/opencl/detail.hpp"
#include "core/atomic_file.hpp"

namespace gp::opencl {

namespace {

constexpr char kMagic[8] = {'G', 'P', 'C', 'L', 'B', 'I', 'N', '1'};

void put_u64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

bool get_u64(const std::string& s, std::size_t& pos, std::uint64_t& v) {
  if (pos + 8 > s.size()) return false;
  v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[pos + i])) << (8 * i);
  pos += 8;
  return true;
}

}  // namespace

std::uint64_t fnv1a64(const void* data, std::size_t n, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string cache_entry_path(const std::string& dir, const std::string& key) {
  return (std::filesystem::path(dir) / (hex64(fnv1a64(key.data(), key.size())) + ".clbin")).string();
}

CacheLookup cache_load(const std::string& dir, const std::string& key) {
  CacheLookup r;
  if (dir.empty()) return r;
  std::ifstream in(cache_entry_path(dir, key), std::ios::binary);
  if (!in) return r;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  auto reject = [&](const char* why) {
    r.status = CacheLookup::Status::rejected;
    r.why = why;
    return r;
  };
  if (s.size() < sizeof kMagic || std::memcmp(s.data(), kMagic, sizeof kMagic) != 0) return reject("bad magic");
  std::size_t pos = sizeof kMagic;
  std::uint64_t key_len = 0, payload_len = 0, checksum = 0;
  if (!get_u64(s, pos, key_len) || pos + key_len > s.size()) return reject("truncated key");
  if (s.compare(pos, key_len, key) != 0 || key_len != key.size()) return reject("key mismatch (stale entry)");
  pos += key_len;
  if (!get_u64(s, pos, payload_len) || !get_u64(s, pos, checksum)) return reject("truncated header");
  if (pos + payload_len != s.size()) return reject("payload size mismatch");
  if (fnv1a64(s.data() + pos, payload_len) != checksum) return reject("checksum mismatch");
  r.status = CacheLookup::Status::ok;
  r.binary.assign(s.begin() + static_cast<std::ptrdiff_t>(pos), s.end());
  return r;
}

bool cache_store(const std::string& dir, const std::string& key, const std::vector<unsigned char>& binary) {
  if (dir.empty() || binary.empty()) return false;
  try {
    std::string s(kMagic, sizeof kMagic);
    put_u64(s, key.size());
    s += key;
    put_u64(s, binary.size());
    put_u64(s, fnv1a64(binary.data(), binary.size()));
    s.append(reinterpret_cast<const char*>(binary.data()), binary.size());
    // Processes and threads may store the same entry at once: each writes whole, then renames.
    return try_write_file_atomically(cache_entry_path(dir, key), s);
  } catch (...) {  // a cache that cannot store costs time, never a result
    return false;
  }
}

}  // namespace gp::opencl
