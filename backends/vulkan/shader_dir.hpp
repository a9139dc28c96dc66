// A directory of a user's compute shaders (`--backend vulkan-spirv:DIR[:DEVICE]`): one shader
// per kernel, named by the convention of backends/kernel_files/ (exp_forward_f32.spv, or .comp
// for GLSL, compiled here by glslc after the parameter block's declaration is inserted). Each
// module is checked before the run: its entry point, its 1-D local size, its bindings against
// the convention's. Internal to this folder.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/kernel_files/convention.hpp"

namespace gp::vk {

struct ShaderFile {
  kernel_files::KernelName name;
  std::string path;                  // as the messages show it: DIR/exp_forward_f32.comp
  std::vector<std::uint32_t> spirv;  // the module
  std::uint32_t local_size = 1;      // its work-group size along x (y and z are 1)
};

struct ShaderDir {
  std::string dir;
  std::map<std::string, ShaderFile> kernels;  // by kernel name
  const ShaderFile* find(const std::string& name) const {
    auto it = kernels.find(name);
    return it == kernels.end() ? nullptr : &it->second;
  }
};

// Reads, compiles and checks every *.spv and *.comp of `dir`. Throws gp::UsageError (one line
// naming the file) for a missing or empty directory, a name outside the convention, a shader
// that does not compile or is not a GLCompute module with entry point "main", a local size that
// is not 1-D, bindings other than the convention's (0 .. buffers, the parameter block last), and
// a kernel given twice.
std::shared_ptr<const ShaderDir> read_shader_dir(const std::string& dir);

// A device running the directory: its backend name, its math profile (the specification's
// built-ins, math_profile_spec.cpp), a note naming the directory.
void describe_kernel_files(DeviceInfo& info, const ShaderDir& files);

}  // namespace gp::vk
