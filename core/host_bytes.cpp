#include "core/host_bytes.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/parallel_blocks.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gp {

namespace {

// Above this a block is mapped on its own: glibc maps blocks of this size anyway (its mmap
// threshold is at most 32 MiB, core/memory_size.hpp), one page fault at a time.
constexpr std::size_t kLargeBytes = std::size_t{64} << 20;
// What one thread copies or touches at a time: large enough that starting threads costs little.
constexpr std::size_t kBlockBytes = std::size_t{16} << 20;

std::int64_t signed_size(std::size_t n) { return static_cast<std::int64_t>(n); }

}  // namespace

bool HostBytes::is_large(std::size_t n) { return n >= kLargeBytes; }

void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n == 0) return;
  if (!HostBytes::is_large(n)) {
    std::memcpy(dst, src, n);
    return;
  }
  for_each_block(signed_size(n), signed_size(kBlockBytes), [&](std::int64_t, std::int64_t begin, std::int64_t end) {
    std::memcpy(static_cast<std::byte*>(dst) + begin, static_cast<const std::byte*>(src) + begin,
                static_cast<std::size_t>(end - begin));
  });
}

void detail::ReleaseHostBytes::operator()(std::byte* p) const noexcept {
#if defined(__linux__)
  if (mapped) {
    munmap(p, mapped);
    return;
  }
#endif
  std::free(p);
}

HostBytes::HostBytes(std::size_t n) : HostBytes(n, true) {}

HostBytes::HostBytes(std::size_t n, bool prefault) : size_(n) {
  if (n == 0) return;
#if defined(__linux__)
  if (is_large(n)) {
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = std::unique_ptr<std::byte, detail::ReleaseHostBytes>(static_cast<std::byte*>(p), {n});
    // Fewer, larger faults where the system grants huge pages; a refusal changes nothing else.
    madvise(p, n, MADV_HUGEPAGE);
    if (!prefault) return;
    // The mapping reads as zeros; writing one byte per page has the kernel clear it now, on
    // every core, instead of in whichever single thread writes the block first.
    const std::int64_t page = 4096;
    for_each_block(signed_size(n), signed_size(kBlockBytes), [&](std::int64_t, std::int64_t begin, std::int64_t end) {
      for (std::int64_t at = begin; at < end; at += page) data_.get()[at] = std::byte{0};
    });
    return;
  }
#endif
  void* p = std::calloc(n, 1);
  if (!p) throw std::bad_alloc();
  data_ = std::unique_ptr<std::byte, detail::ReleaseHostBytes>(static_cast<std::byte*>(p), {});
}

HostBytes::HostBytes(const HostBytes& other) : HostBytes() {
  if (other.size_ == 0) return;
  HostBytes copy(other.size_, false);  // the copy's threads fault its pages in
  copy_bytes(copy.data(), other.data(), other.size_);
  *this = std::move(copy);
}

HostBytes::HostBytes(HostBytes&& other) noexcept
    : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)) {}

HostBytes& HostBytes::operator=(HostBytes&& other) noexcept {
  data_ = std::move(other.data_);
  size_ = std::exchange(other.size_, 0);
  return *this;
}

HostBytes& HostBytes::operator=(const HostBytes& other) {
  if (this != &other) *this = HostBytes(other);
  return *this;
}

}  // namespace gp
