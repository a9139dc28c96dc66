// The host memory the run's large subjects may hold at once. Each large case fits the machine
// alone (check/memory_fit.hpp SKIPs one that does not), but sixteen workers that take the tier's
// largest cases together do not: the whole large tier on an H200 host (128 GiB) at -j 16 was
// killed for memory at 130.8 GB once both cases past 2^31 elements ran beside the others. A worker
// reserves a large subject's estimate before it prepares the subject and waits while the
// reservations of the subjects running would pass the machine's memory; one subject alone is
// always let in (the estimate is an upper bound: memory_fit.hpp).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace gp {

class HostMemoryBudget {
 public:
  explicit HostMemoryBudget(std::int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  // Holds `bytes` of the budget for its lifetime; waits until they fit beside the others held.
  class Reservation {
   public:
    Reservation(HostMemoryBudget& budget, std::int64_t bytes);
    ~Reservation();
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;

   private:
    HostMemoryBudget& budget_;
    std::int64_t bytes_;
  };

  std::int64_t held() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::int64_t capacity_, held_ = 0;
};

}  // namespace gp
