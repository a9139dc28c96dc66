// Zeroed host memory for tensors of up to tens of GiB, and copies of it. A fresh block of that
// size costs more in the kernel than in its use: every 4 KiB page is faulted in and cleared by
// the thread that first writes it (36 % of a warm run's samples over 10^8 elements went to
// clearing pages inside one thread's memset). A large block is therefore mapped on its own, asked
// for transparent huge pages, and first touched on every core (core/parallel_blocks.hpp); a
// large copy runs on every core too. Small blocks come from the allocator as before.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace gp {

// Copies `n` bytes, on every core when `n` is large.
void copy_bytes(void* dst, const void* src, std::size_t n);

namespace detail {
struct ReleaseHostBytes {
  std::size_t mapped = 0;  // 0: from the allocator
  void operator()(std::byte* p) const noexcept;
};
}  // namespace detail

class HostBytes {
 public:
  HostBytes() = default;
  explicit HostBytes(std::size_t n);  // zeroed
  HostBytes(const HostBytes& other);
  HostBytes& operator=(const HostBytes& other);
  HostBytes(HostBytes&& other) noexcept;
  HostBytes& operator=(HostBytes&& other) noexcept;
  ~HostBytes() = default;

  std::size_t size() const { return size_; }
  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }

  // Whether a block of `n` bytes is mapped on its own and touched on every core.
  static bool is_large(std::size_t n);

 private:
  // `prefault`: touch a large block's pages on every core (else whoever writes it first does).
  HostBytes(std::size_t n, bool prefault);
  std::unique_ptr<std::byte, detail::ReleaseHostBytes> data_;
  std::size_t size_ = 0;
};

}  // namespace gp
