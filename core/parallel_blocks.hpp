// Work over a huge range split into fixed blocks, on every core: the large tier's tensors of up
// to 2^31 elements take minutes on one (drawing inputs, scanning for extremes). The blocks do
// not depend on the number of threads, so a block's result, and a stream seeded per block, is
// the same on every machine.
//
// The threads that help a caller are one pool for the process. With a thread per core for every
// call, sixteen workers' large cases each ran 16 threads, and the run's longest case (started
// first) got a sixteenth of the machine. The pool serves the callers by rank (BlockRank: the
// runner ranks each case by the order the workers took it, the longest first), equal ranks in
// the order they asked; a caller whose turn has not come runs its blocks on its own thread.
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

// While it lives, this thread's for_each_block calls have this rank (lower: served first), and
// so do the calls made inside their blocks, on whichever thread. Without one a call ranks last.
class BlockRank {
 public:
  explicit BlockRank(std::int64_t rank);
  ~BlockRank();
  BlockRank(const BlockRank&) = delete;
  BlockRank& operator=(const BlockRank&) = delete;

 private:
  std::int64_t previous_;
};

namespace detail {
// Runs `work` on the calling thread and on up to `helpers` pool threads (those free now or
// before the caller's own share ends, by rank); returns when every run of it ended.
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
