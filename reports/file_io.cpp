#include "reports/file_io.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/error.hpp"

namespace gp {

namespace {
[[noreturn]] void fail(std::string_view what, const std::filesystem::path& path, int err) {
  throw Error(std::string(what) + " " + path.string() + ": " + std::strerror(err));
}
}  // namespace

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open", path, errno);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) fail("cannot read", path, errno);
  return std::move(buffer).str();
}

}  // namespace gp
