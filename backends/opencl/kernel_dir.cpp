// Reading a kernel directory and building its files. Every failure here is the user's file, so
// each is one line a user can act on (gp::UsageError: exit code 2), not a device error.
#include "backends/opencl/kernel_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "backends/kernel_files/params.hpp"
#include "core/error.hpp"

namespace gp::opencl {

namespace fs = std::filesystem;

namespace {

std::string prefix(const std::string& dir) { return "opencl-src: " + dir + ": "; }

// The preamble, then the file as its own line 1, so the build log's line numbers are the file's.
std::string program_text(const KernelDir::File& f) {
  return kernel_files::preamble_opencl() + "#line 1 \"" + fs::path(f.path).filename().string() + "\"\n" + f.source;
}

// A compiler that ignores #line (NVIDIA's names the source "<kernel>" and counts the preamble's
// lines) has its "<kernel>:LINE:" made the file's name and line.
std::string with_file_lines(std::string line, const std::string& file) {
  static const std::regex unnamed(R"(<(kernel|source)>:(\d+):)");
  std::smatch m;
  if (!std::regex_search(line, m, unnamed)) return line;
  const std::string text = kernel_files::preamble_opencl();
  const long preamble = std::count(text.begin(), text.end(), '\n');
  const long own = std::stol(m[2].str()) - preamble - 1;  // the #line directive is one more line
  if (own < 1) return line;                               // an error in the preamble: left as the compiler said it
  return m.prefix().str() + file + ":" + std::to_string(own) + ":" + m.suffix().str();
}

// The first line of a build log that names an error, else its first non-empty line.
std::string first_error(const std::string& log, const std::string& file) {
  std::istringstream in(log);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty() && line.find_first_not_of(" \t\r") != std::string::npos) first = line;
    if (line.find("error") != std::string::npos) return with_file_lines(line, file);
  }
  return first.empty() ? "(the build log is empty)" : with_file_lines(first, file);
}

// File descriptor 2 pointed at /dev/null while it lives.
class SilencedStderr {
 public:
  SilencedStderr() {
    std::fflush(stderr);
    saved_ = ::dup(2);
    const int null = ::open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null >= 0) ::dup2(null, 2);
    if (null >= 0) ::close(null);
  }
  ~SilencedStderr() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
  }
  SilencedStderr(const SilencedStderr&) = delete;
  SilencedStderr& operator=(const SilencedStderr&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace

std::shared_ptr<const KernelDir> read_kernel_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("opencl-src: no directory '" + dir + "'");
  auto out = std::make_shared<KernelDir>();
  out->dir = dir;
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".cl") paths.push_back(e.path());
  if (ec) throw UsageError(prefix(dir) + "cannot list it: " + ec.message());
  if (paths.empty()) throw UsageError(prefix(dir) + "holds no .cl file");
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw UsageError(prefix(dir) + "cannot read " + p.filename().string());
    out->files.push_back({(fs::path(dir) / p.filename()).string(), text.str()});
  }
  return out;
}

KernelDirPrograms::KernelDirPrograms(const KernelDir& dir, const cl::Context& context, const cl::Device& device,
                                     bool quiet)
    : dir_(dir.dir) {
  const std::string device_name = device.getInfo<CL_DEVICE_NAME>();
  for (const auto& f : dir.files) {
    cl::Program program(context, program_text(f));
    try {
      std::optional<SilencedStderr> silenced;
      if (quiet) silenced.emplace();
      program.build({device}, "-cl-std=CL1.2");
    } catch (const cl::Error& e) {
      if (e.err() != CL_BUILD_PROGRAM_FAILURE) throw;
      std::string log;
      try {
        log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
      } catch (const cl::Error&) {
      }
      throw UsageError("opencl-src: " + f.path + " does not compile on " + device_name + ": " +
                       first_error(log, fs::path(f.path).filename().string()));
    }
    std::vector<cl::Kernel> kernels;
    program.createKernels(&kernels);
    if (kernels.empty()) throw UsageError("opencl-src: " + f.path + " defines no kernel");
    for (auto& k : kernels) {
      const std::string name = k.getInfo<CL_KERNEL_FUNCTION_NAME>();
      const kernel_files::ParsedName parsed = kernel_files::parse_kernel_name(name);
      if (!parsed.kernel) throw UsageError("opencl-src: " + f.path + ": kernel " + parsed.error);
      const kernel_files::KernelName& kn = *parsed.kernel;
      const auto args = static_cast<int>(k.getInfo<CL_KERNEL_NUM_ARGS>());
      const int want = kernel_files::argument_count(kn.op, kn.pass);
      if (args != want)
        throw UsageError("opencl-src: " + f.path + ": kernel " + name + " takes " + std::to_string(args) +
                         " arguments, the convention " + std::to_string(want) + ": " + kernel_files::signature(kn));
      if (const Entry* before = find(name))
        throw UsageError("opencl-src: kernel " + name + " is defined in " + before->file + " and in " + f.path);
      kernels_.emplace(name, Entry{kn, f.path, program});
    }
  }
}

const KernelDirPrograms::Entry* KernelDirPrograms::find(const std::string& name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

}  // namespace gp::opencl
