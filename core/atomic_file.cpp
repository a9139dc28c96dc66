#include "core/atomic_file.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <system_error>
#include <thread>

#include "core/error.hpp"

namespace gp {

namespace {

[[noreturn]] void fail(std::string_view what, const std::filesystem::path& path, const std::string& why) {
  throw Error(std::string(what) + " " + path.string() + ": " + why);
}

std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + "." + std::to_string(counter++);
  return tmp;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) fail("cannot create directory", path.parent_path(), ec.message());
  }
  const std::filesystem::path tmp = temporary_sibling(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot open", tmp, std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      const int err = errno;
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      fail("cannot write", tmp, std::strerror(err));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    fail("cannot rename " + tmp.string() + " to", path, ec.message());
  }
}

bool try_write_file_atomically(const std::filesystem::path& path, std::string_view bytes) noexcept {
  try {
    write_file_atomically(path, bytes);
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace gp
