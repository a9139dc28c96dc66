// Whole files written all or nothing: the bytes go to a temporary sibling whose name is unique
// per process, thread and call, then are renamed over the target, so neither a crash nor a
// concurrent writer of the same path (two processes filling one cache) leaves half a file.
#pragma once

#include <filesystem>
#include <string_view>

namespace gp {

// Creates the parent folder when missing. Throws gp::Error naming the path and the reason.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// The same for a cache, whose writes may fail without consequence: false instead of throwing.
bool try_write_file_atomically(const std::filesystem::path& path, std::string_view bytes) noexcept;

}  // namespace gp
