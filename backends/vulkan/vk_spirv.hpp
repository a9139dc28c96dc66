// SPIR-V modules embedded at build time (see CMakeLists.txt: one source per shader family,
// one variant per dtype). The table is generated into the build tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gp::vk {

struct SpirvBlob {
  std::string_view name;  // "<family>_<dtype>", e.g. "unary_f32"
  const std::uint32_t* words;
  std::size_t count;
};

std::span<const SpirvBlob> embedded_spirv();

}  // namespace gp::vk
