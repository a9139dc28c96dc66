// for_each_block (core/parallel_blocks.hpp): every block once, a block's exception at the caller,
// calls from inside a block, and the pool's order: a caller keeps the threads it took, a later one
// runs on its own thread meanwhile, and threads that come free go to the lowest rank (the run's
// longest large case, started first, was slowed to a sixteenth of the machine by the others').
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/parallel_blocks.hpp"

namespace gp {
namespace {

TEST(ParallelBlocks, EveryBlockRunsOnceWithItsRange) {
  constexpr std::int64_t n = 1000003, size = 4096, blocks = (n + size - 1) / size;
  std::vector<std::atomic<int>> runs(blocks);
  std::atomic<std::int64_t> covered{0};
  for_each_block(n, size, [&](std::int64_t b, std::int64_t begin, std::int64_t end) {
    ++runs[static_cast<std::size_t>(b)];
    EXPECT_EQ(begin, b * size);
    EXPECT_EQ(end, std::min(n, (b + 1) * size));
    covered += end - begin;
  });
  for (std::int64_t b = 0; b < blocks; ++b) EXPECT_EQ(runs[static_cast<std::size_t>(b)], 1) << "block " << b;
  EXPECT_EQ(covered, n);
  int calls = 0;
  for_each_block(0, size, [&](std::int64_t, std::int64_t, std::int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelBlocks, TheFirstExceptionOfABlockReachesTheCallerAfterTheOthersStopped) {
  std::atomic<int> running{0};
  EXPECT_THROW(for_each_block(64, 1,
                              [&](std::int64_t b, std::int64_t, std::int64_t) {
                                ++running;
                                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                --running;
                                if (b == 3) throw std::runtime_error("block 3");
                              }),
               std::runtime_error);
  EXPECT_EQ(running, 0) << "a block still ran after the call returned";
}

TEST(ParallelBlocksThreads, BlocksThatCallForEachBlockThemselvesFinish) {
  std::atomic<std::int64_t> total{0};
  for_each_block(4 * block_threads(), 1, [&](std::int64_t, std::int64_t, std::int64_t) {
    for_each_block(10000, 7, [&](std::int64_t, std::int64_t begin, std::int64_t end) { total += end - begin; });
  });
  EXPECT_EQ(total, 4 * block_threads() * 10000);
}

// Whether `count` reached `at_least` within 30 s.
bool reaches(const std::atomic<int>& count, int at_least) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (count < at_least && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return count >= at_least;
}

// A caller on a thread of its own whose `blocks` blocks hold every thread it gets (its own and
// the pool's) until release(); `holding` counts the blocks that started.
class PoolHolder {
 public:
  explicit PoolHolder(std::int64_t blocks)
      : thread_([this, blocks] {
          for_each_block(blocks, 1, [&](std::int64_t, std::int64_t, std::int64_t) {
            ++holding;
            while (!released_) std::this_thread::sleep_for(std::chrono::microseconds(100));
          });
        }) {}
  ~PoolHolder() { release(); }
  void release() {
    released_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::atomic<int> holding{0};

 private:
  std::atomic<bool> released_{false};
  std::thread thread_;
};

TEST(ParallelBlocksThreads, AnEarlierCallerKeepsThePoolALaterOneRunsOnItsOwnThreadMeanwhile) {
  const int threads = block_threads();
  if (threads < 2) GTEST_SKIP() << "one hardware thread: no pool to share";
  PoolHolder first(4 * threads);
  ASSERT_TRUE(reaches(first.holding, threads)) << "the first caller did not get a thread per core";

  std::mutex mutex;
  std::set<std::thread::id> ran_on;
  for_each_block(2000, 1, [&](std::int64_t, std::int64_t, std::int64_t) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    std::lock_guard lock(mutex);
    ran_on.insert(std::this_thread::get_id());
  });
  first.release();
  EXPECT_EQ(ran_on, std::set<std::thread::id>{std::this_thread::get_id()})
      << ran_on.size() << " threads ran the later call's blocks while the earlier one held the pool";
}

// A call whose blocks record the threads that run them while `recording()` holds.
struct RecordingCall {
  std::mutex mutex;
  std::set<std::thread::id> ran_on;
  std::atomic<int> started{0};
  void run(std::int64_t rank, std::int64_t blocks, const std::function<bool()>& recording) {
    const BlockRank ranked(rank);
    for_each_block(blocks, 1, [&](std::int64_t, std::int64_t, std::int64_t) {
      ++started;
      if (recording()) {
        std::lock_guard lock(mutex);
        ran_on.insert(std::this_thread::get_id());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  }
};

TEST(ParallelBlocksThreads, ThreadsThatComeFreeGoToTheLowestRankNotTheEarliestCaller) {
  const int threads = block_threads();
  if (threads < 2) GTEST_SKIP() << "one hardware thread: no pool to share";
  PoolHolder holder(threads);
  ASSERT_TRUE(reaches(holder.holding, threads)) << "the holder did not get a thread per core";
  // Both ask while the pool is held: the ranked-last one first, then the one ranked first.
  // The later rank's blocks are recorded while the first rank has blocks no thread took yet.
  const int blocks = 400 * threads;
  RecordingCall late_rank, early_rank;
  std::thread asks_first([&] { late_rank.run(5, blocks, [&] { return early_rank.started < blocks; }); });
  ASSERT_TRUE(reaches(late_rank.started, 1));
  std::thread asks_second([&] { early_rank.run(1, blocks, [] { return true; }); });
  ASSERT_TRUE(reaches(early_rank.started, 1));
  holder.release();
  asks_second.join();
  asks_first.join();
  EXPECT_EQ(late_rank.ran_on.size(), 1u) << "a pool thread served the later rank while the earlier one had blocks left";
  EXPECT_EQ(early_rank.ran_on.size(), static_cast<std::size_t>(threads))
      << "the first-ranked call did not get every thread that came free";
}

}  // namespace
}  // namespace gp
