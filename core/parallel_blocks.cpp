#include "core/parallel_blocks.hpp"

#include <condition_variable>
#include <deque>
#include <system_error>
#include <vector>

namespace gp::detail {

namespace {

// One caller's request for helpers; lives on the caller's stack until every helper that started
// it has finished.
struct Request {
  const std::function<void()>* work = nullptr;
  int wanted = 0;
  int started = 0;
  int finished = 0;
};

class BlockPool {
 public:
  BlockPool() {
    for (int t = 1; t < block_threads(); ++t) {
      try {
        threads_.emplace_back([this] { serve(); });
      } catch (const std::system_error&) {  // no more threads: callers do the rest themselves
        break;
      }
    }
    for (auto& t : threads_) t.detach();  // the pool lives as long as the process (never destroyed)
  }

  void run(int helpers, const std::function<void()>& work) {
    Request r{&work, std::min(helpers, static_cast<int>(threads_.size()))};
    if (r.wanted > 0) {
      std::lock_guard lock(mutex_);
      queue_.push_back(&r);
    }
    work_ready_.notify_all();
    work();
    std::unique_lock lock(mutex_);
    // Helpers not started yet would find nothing left to take: they are not waited for.
    std::erase(queue_, &r);
    helper_done_.wait(lock, [&] { return r.finished == r.started; });
  }

 private:
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [&] { return !queue_.empty(); });
      Request* r = queue_.front();  // the oldest caller first
      if (++r->started == r->wanted) queue_.pop_front();
      lock.unlock();
      (*r->work)();  // never throws: for_each_block's work keeps its exception
      lock.lock();
      ++r->finished;
      helper_done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_ready_, helper_done_;
  std::deque<Request*> queue_;
  std::vector<std::thread> threads_;
};

}  // namespace

void run_with_helpers(int helpers, const std::function<void()>& work) {
  static BlockPool* const pool = new BlockPool;  // NOLINT: deliberately never destroyed (detached threads)
  pool->run(helpers, work);
}

}  // namespace gp::detail
