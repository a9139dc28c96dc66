#include "core/memory_size.hpp"

#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace gp {

std::int64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

std::int64_t peak_resident_bytes() {
  std::int64_t peak = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    if (getrusage(who, &usage) == 0) peak = std::max(peak, std::int64_t{usage.ru_maxrss} * 1024);  // KiB on Linux
  }
  return peak;
}

void keep_large_blocks_in_heap() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest (half its 64 MiB thread heaps)
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

std::string memory_text(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", v, units[u]);
  return text;
}

}  // namespace gp
