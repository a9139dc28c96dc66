// Work over a huge range split into fixed blocks, on every core: the large tier's tensors of up
// to 2^31 elements take minutes on one (drawing inputs, scanning for extremes). The blocks do
// not depend on the number of threads, so a block's result, and a stream seeded per block, is
// the same on every machine.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace gp {

// The threads for_each_block runs at most: the hardware's.
inline int block_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// fn(block, begin, end) for every block [block * size, min(n, (block + 1) * size)), taken in turn
// by the hardware's threads (fewer when the system refuses one); the first exception a block
// throws is rethrown after every thread ended.
template <typename Fn>
void for_each_block(std::int64_t n, std::int64_t size, const Fn& fn) {
  const std::int64_t blocks = (n + size - 1) / size;
  const std::int64_t threads = std::min<std::int64_t>(blocks, block_threads());
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    try {
      for (std::int64_t b = next++; b < blocks; b = next++) fn(b, b * size, std::min(n, (b + 1) * size));
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = blocks;  // the others stop after their block
    }
  };
  std::vector<std::thread> pool;
  for (std::int64_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {  // no more threads: the ones running take every block
      break;
    }
  }
  work();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace gp
