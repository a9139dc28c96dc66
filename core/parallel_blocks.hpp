// Work over a huge range split into fixed blocks, on every core: the large tier's tensors of up
// to 2^31 elements take minutes on one (drawing inputs, scanning for extremes). The blocks do
// not depend on the number of threads, so a block's result, and a stream seeded per block, is
// the same on every machine.
//
// The threads that help a caller are one pool for the process, which serves the callers in the
// order they asked: with a thread per core for every call, sixteen workers' large cases each
// ran 16 threads, and the run's longest case (started first) got a sixteenth of the machine.
// Now the earliest call takes every pool thread it can use, and later ones run on their own
// thread until threads come free.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace gp {

// The threads for_each_block runs at most: the hardware's.
inline int block_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

namespace detail {
// Runs `work` on the calling thread and on up to `helpers` pool threads (those free now or
// before the caller's own share ends, oldest caller first); returns when every run of it ended.
// `work` must end once there is nothing left to take, whoever runs it.
void run_with_helpers(int helpers, const std::function<void()>& work);
}  // namespace detail

// fn(block, begin, end) for every block [block * size, min(n, (block + 1) * size)), taken in turn
// by the calling thread and the pool's; the first exception a block throws is rethrown after
// every thread has left the blocks.
template <typename Fn>
void for_each_block(std::int64_t n, std::int64_t size, const Fn& fn) {
  const std::int64_t blocks = (n + size - 1) / size;
  if (blocks <= 0) return;
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  const std::function<void()> work = [&] {
    try {
      for (std::int64_t b = next++; b < blocks; b = next++) fn(b, b * size, std::min(n, (b + 1) * size));
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = blocks;  // the others stop after their block
    }
  };
  if (blocks == 1) {
    work();
  } else {
    detail::run_with_helpers(static_cast<int>(std::min<std::int64_t>(blocks, block_threads()) - 1), work);
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace gp
