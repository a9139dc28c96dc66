// Whole-file reads and writes for report files. Writes go to a temporary sibling that is renamed
// over the target, so an interrupted run never leaves a half-written parity.json behind.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/atomic_file.hpp"  // write_file_atomically, for the report writers

namespace gp {

// Throws gp::Error naming the path and the system's reason.
std::string read_whole_file(const std::filesystem::path& path);

}  // namespace gp
