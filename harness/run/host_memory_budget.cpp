#include "harness/run/host_memory_budget.hpp"

namespace gp {

HostMemoryBudget::Reservation::Reservation(HostMemoryBudget& budget, std::int64_t bytes)
    : budget_(budget), bytes_(bytes) {
  std::unique_lock lock(budget_.mutex_);
  // No capacity known (0): nothing to wait for. Nothing held: the subject runs alone.
  budget_.freed_.wait(lock, [&] {
    return budget_.capacity_ <= 0 || budget_.held_ == 0 || budget_.held_ + bytes_ <= budget_.capacity_;
  });
  budget_.held_ += bytes_;
}

HostMemoryBudget::Reservation::~Reservation() {
  {
    std::lock_guard lock(budget_.mutex_);
    budget_.held_ -= bytes_;
  }
  budget_.freed_.notify_all();
}

std::int64_t HostMemoryBudget::held() const {
  std::lock_guard lock(mutex_);
  return held_;
}

}  // namespace gp
