#include "core/parallel_blocks.hpp"

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <system_error>
#include <vector>

namespace gp {

namespace {
thread_local std::int64_t t_rank = std::numeric_limits<std::int64_t>::max();
}  // namespace

BlockRank::BlockRank(std::int64_t rank) : previous_(t_rank) { t_rank = rank; }
BlockRank::~BlockRank() { t_rank = previous_; }

namespace detail {

namespace {

// One caller's request for helpers; lives on the caller's stack until every helper that started
// it has finished.
struct Request {
  const std::function<void()>* work = nullptr;
  std::int64_t rank = 0;
  std::uint64_t order = 0;  // when it asked: equal ranks first come, first served
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
    Request r{&work, t_rank, 0, std::min(helpers, static_cast<int>(threads_.size()))};
    if (r.wanted > 0) {
      {
        std::lock_guard lock(mutex_);
        r.order = asked_++;
        queue_.push_back(&r);
      }
      work_ready_.notify_all();
    }
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
      const auto first = std::min_element(queue_.begin(), queue_.end(), [](const Request* a, const Request* b) {
        return a->rank != b->rank ? a->rank < b->rank : a->order < b->order;
      });
      Request* r = *first;
      if (++r->started == r->wanted) queue_.erase(first);
      lock.unlock();
      {
        const BlockRank rank(r->rank);  // calls inside its blocks keep its rank
        (*r->work)();                   // never throws: for_each_block's work keeps its exception
      }
      lock.lock();
      ++r->finished;
      helper_done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_ready_, helper_done_;
  std::vector<Request*> queue_;  // a few at a time: a scan finds the first by rank
  std::uint64_t asked_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace

void run_with_helpers(int helpers, const std::function<void()>& work) {
  static BlockPool* const pool = new BlockPool;  // NOLINT: deliberately never destroyed (detached threads)
  pool->run(helpers, work);
}

}  // namespace detail

}  // namespace gp
