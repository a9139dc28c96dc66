// A directory of a user's OpenCL C kernels (`--backend opencl-src:DIR[:DEVICE]`): its files read
// once, and per context the programs built from them, each kernel checked against the
// convention of backends/kernel_files/ (its name, its argument count). Internal to this folder.
#pragma once

#include <CL/opencl.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/kernel_files/convention.hpp"

namespace gp::opencl {

struct KernelDir {
  struct File {
    std::string path;    // as the messages show it: DIR/NAME.cl
    std::string source;  // the file's text, without the preamble
  };
  std::string dir;
  std::vector<File> files;  // every *.cl of the directory, by name
};

// Reads every *.cl file of `dir`; throws gp::UsageError (one line) when the directory is missing
// or holds none.
std::shared_ptr<const KernelDir> read_kernel_dir(const std::string& dir);

// Every file of the directory built for one device of `context`, and its kernels by name.
// Throws gp::UsageError (one line naming the file, and the first error of the build log) for a
// file that does not compile, a kernel whose name or argument count breaks the convention, and
// a kernel defined twice.
class KernelDirPrograms {
 public:
  // `quiet`: the driver's own compiler messages (PoCL writes them to stderr) are kept off the
  // terminal while the files build, so a file that does not compile is the one line of the
  // UsageError. For the check at selection, before any thread runs: it redirects the process's
  // stderr.
  KernelDirPrograms(const KernelDir& dir, const cl::Context& context, const cl::Device& device, bool quiet = false);
  struct Entry {
    kernel_files::KernelName name;
    std::string file;
    cl::Program program;
  };
  // nullptr when the directory has no kernel of that name.
  const Entry* find(const std::string& name) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::map<std::string, Entry> kernels_;
};

}  // namespace gp::opencl
