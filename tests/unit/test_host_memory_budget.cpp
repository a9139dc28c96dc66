// The run's budget of host memory for large subjects (harness/run/host_memory_budget.hpp): a
// subject waits while the ones running hold too much for it beside them, and runs alone when it
// is larger than the machine's memory on its own (memory_fit.hpp has let it in).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "harness/run/host_memory_budget.hpp"

namespace gp {
namespace {

TEST(HostMemoryBudget, ASubjectWaitsUntilItFitsBesideTheOthers) {
  HostMemoryBudget budget(100);
  std::atomic<bool> first_done{false};
  std::optional<HostMemoryBudget::Reservation> first;
  first.emplace(budget, 60);
  std::thread second([&] {
    HostMemoryBudget::Reservation r(budget, 50);
    EXPECT_TRUE(first_done.load()) << "60 + 50 bytes held at once of 100";
    EXPECT_EQ(budget.held(), 50);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(budget.held(), 60);
  first_done = true;
  first.reset();
  second.join();
  EXPECT_EQ(budget.held(), 0);
  {
    HostMemoryBudget::Reservation a(budget, 30), b(budget, 70);  // fits beside: no wait
    EXPECT_EQ(budget.held(), 100);
  }
  HostMemoryBudget::Reservation alone(budget, 250);  // larger than the budget, nothing held: runs
  EXPECT_EQ(budget.held(), 250);
}

}  // namespace
}  // namespace gp
