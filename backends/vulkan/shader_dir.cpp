// Reading a shader directory. Every failure here is the user's file, so each is one line a user
// can act on (gp::UsageError: exit code 2).
#include "shader_dir.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "backends/kernel_files/params.hpp"
#include "core/error.hpp"
#include "vulkan_backend.hpp"

extern char** environ;

namespace gp::vk {

namespace fs = std::filesystem;
namespace kf = kernel_files;

namespace {

[[noreturn]] void refuse(const std::string& what) { throw UsageError("vulkan-spirv: " + what); }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A temporary folder, removed with everything in it when this goes.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gradparity-glslc-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) refuse("cannot create a temporary folder for glslc");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The GLSL with the parameter block's declaration after its #version line, and a #line that
// keeps the compiler's line numbers the file's own.
std::string with_preamble(const std::string& source, int params_binding, const std::string& path) {
  std::istringstream in(source);
  std::string line, out;
  int number = 0;
  bool inserted = false;
  while (std::getline(in, line)) {
    ++number;
    out += line + "\n";
    if (!inserted && line.find("#version") != std::string::npos) {
      out += kf::preamble_glsl(params_binding) + "#line " + std::to_string(number + 1) + "\n";
      inserted = true;
    }
  }
  if (!inserted) refuse(path + " has no #version line (the parameter block is declared after it)");
  return out;
}

// glslc's first error line, or its first line.
std::string first_error(const std::string& log) {
  std::istringstream in(log);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first.empty() ? "glslc gave no message" : first;
}

std::vector<std::uint32_t> compile_glsl(const fs::path& file, const std::string& shown, int params_binding) {
  const TempDir tmp;
  const fs::path src = tmp.path() / file.filename(), spv = tmp.path() / "out.spv", log = tmp.path() / "glslc.log";
  std::ofstream(src) << with_preamble(read_text(file), params_binding, shown);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> args = {"glslc",     "-fshader-stage=compute", "--target-env=vulkan1.1", "-o", spv.string(),
                                   src.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "glslc", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) refuse(shown + " is GLSL, and glslc is not on PATH to compile it (or give a .spv)");
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string message = first_error(read_text(log));
    // glslc names the temporary copy: name the user's file instead.
    for (auto at = message.find(src.string()); at != std::string::npos; at = message.find(src.string()))
      message.replace(at, src.string().size(), file.filename().string());
    refuse(shown + " does not compile: " + message);
  }
  const std::string bytes = read_text(spv);
  std::vector<std::uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

std::vector<std::uint32_t> read_spirv(const fs::path& file, const std::string& shown) {
  const std::string bytes = read_text(file);
  if (bytes.size() % 4 != 0 || bytes.size() < 20)
    refuse(shown + " is not a SPIR-V module (" + std::to_string(bytes.size()) + " bytes)");
  std::vector<std::uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

// The module's entry point, local size and bindings, checked against the convention.
void check_module(ShaderFile& f) {
  constexpr std::uint32_t kMagic = 0x07230203, kOpEntryPoint = 15, kOpExecutionMode = 16, kOpDecorate = 71;
  constexpr std::uint32_t kGLCompute = 5, kLocalSize = 17, kLocalSizeId = 38, kBinding = 33, kDescriptorSet = 34;
  const auto& w = f.spirv;
  if (w.empty() || w[0] != kMagic) refuse(f.path + " is not a SPIR-V module (no magic number)");
  bool entry = false, local = false;
  std::map<std::uint32_t, int> bindings;  // binding -> variables decorated with it
  for (std::size_t at = 5; at < w.size();) {
    const std::uint32_t count = w[at] >> 16, op = w[at] & 0xFFFFu;
    if (count == 0 || at + count > w.size()) refuse(f.path + " is not a valid SPIR-V module (a truncated instruction)");
    if (op == kOpEntryPoint && count >= 4 && w[at + 1] == kGLCompute) {
      // The name's bytes, NUL-terminated and padded within the instruction's words.
      const auto* name = reinterpret_cast<const char*>(&w[at + 3]);
      entry = entry || std::string(name, strnlen(name, (count - 3) * 4)) == "main";
    }
    if (op == kOpExecutionMode && count >= 3 && w[at + 2] == kLocalSizeId)
      refuse(f.path + ": its local size comes from specialization constants; give it as numbers");
    if (op == kOpExecutionMode && count >= 6 && w[at + 2] == kLocalSize) {
      if (w[at + 3] == 0 || w[at + 4] != 1 || w[at + 5] != 1)
        refuse(f.path + ": local size " + std::to_string(w[at + 3]) + "x" + std::to_string(w[at + 4]) + "x" +
               std::to_string(w[at + 5]) + "; the launch is 1-D (local_size_y = local_size_z = 1)");
      f.local_size = w[at + 3];
      local = true;
    }
    if (op == kOpDecorate && count >= 4 && w[at + 2] == kDescriptorSet && w[at + 3] != 0)
      refuse(f.path + ": a binding in descriptor set " + std::to_string(w[at + 3]) + "; every buffer is in set 0");
    if (op == kOpDecorate && count >= 4 && w[at + 2] == kBinding) ++bindings[w[at + 3]];
    at += count;
  }
  if (!entry) refuse(f.path + " has no GLCompute entry point named main");
  if (!local) refuse(f.path + " has no local size");
  const int want = kf::argument_count(f.name.op, f.name.pass);
  for (const auto& [binding, variables] : bindings)
    if (variables > 1)
      refuse(f.path + ": binding " + std::to_string(binding) + " is declared " + std::to_string(variables) +
             " times (the convention's " + std::to_string(want) + " bindings: " + kf::signature(f.name) + ")");
  const auto top = bindings.empty() ? -1 : static_cast<int>(bindings.rbegin()->first);
  if (top != want - 1)
    refuse(f.path + ": bindings up to " + std::to_string(top) + ", the convention's " + std::to_string(want) +
           " are 0 to " + std::to_string(want - 1) + ": " + kf::signature(f.name));
}

}  // namespace

std::shared_ptr<const ShaderDir> read_shader_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) refuse("no directory '" + dir + "'");
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && (e.path().extension() == ".spv" || e.path().extension() == ".comp"))
      paths.push_back(e.path());
  if (ec) refuse(dir + ": cannot list it: " + ec.message());
  if (paths.empty()) refuse(dir + ": holds no .spv or .comp file");
  std::sort(paths.begin(), paths.end());
  auto out = std::make_shared<ShaderDir>();
  out->dir = dir;
  for (const auto& p : paths) {
    ShaderFile f;
    f.path = (fs::path(dir) / p.filename()).string();
    const kf::ParsedName parsed = kf::parse_kernel_name(p.stem().string());
    if (!parsed.kernel) refuse(f.path + ": file name " + parsed.error);
    f.name = *parsed.kernel;
    const std::string name = kf::kernel_name(f.name);
    if (const ShaderFile* before = out->find(name))
      refuse("kernel " + name + " is given by " + before->path + " and by " + f.path);
    const int params_binding = kf::argument_count(f.name.op, f.name.pass) - 1;
    f.spirv = p.extension() == ".comp" ? compile_glsl(p, f.path, params_binding) : read_spirv(p, f.path);
    check_module(f);
    out->kernels.emplace(name, std::move(f));
  }
  return out;
}

void describe_kernel_files(DeviceInfo& info, const ShaderDir& files) {
  info.backend = "vulkan-spirv";
  info.math = &vulkan_spec_math_profile();
  info.notes.insert(info.notes.begin(), "shaders of " + files.dir + " (" + std::to_string(files.kernels.size()) +
                                            " kernels, docs/kernel-files.md)");
}

}  // namespace gp::vk
