// On-disk cache of compiled program binaries. One file per key (device name + driver version +
// build options + source hash). A file holds a header with the full key and a checksum of the
// payload, so a corrupt, truncated or stale file is detected and rebuilt, never trusted.
// Writes go to a temporary file that is renamed into place, so readers never see half a file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gp::opencl {

struct CacheLookup {
  enum class Status { missing, ok, rejected } status = Status::missing;
  std::vector<unsigned char> binary;
  std::string why;  // for rejected entries
};

// Path of the entry for key inside dir.
std::string cache_entry_path(const std::string& dir, const std::string& key);
CacheLookup cache_load(const std::string& dir, const std::string& key);
// Best effort: returns false (never throws) when the folder or file cannot be written.
bool cache_store(const std::string& dir, const std::string& key, const std::vector<unsigned char>& binary);

}  // namespace gp::opencl
