// ProfileMemo<T>: a subject's values per device profile and flush mode (its bounds), computed on
// first use and kept for the life of the subject's reference data. A value whose computation read
// its profile counts as a read again each time it is handed out (ref::note_profile_read), so an
// evaluation built on it is never taken for one that every profile shares (cached_bounds); one
// that met a value where flushing matters likewise (ref::note_flush_read).
// Thread-safe: a model's devices run on different workers at once (harness/run/work_items.hpp);
// a value is computed outside the lock, and by two threads at once only for one key, where the
// first to finish is kept (both computed the same).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "core/math_profile.hpp"
#include "reference/tracked.hpp"

namespace gp {

template <class T>
class ProfileMemo {
 public:
  // Copied and moved with its values, each with a mutex of its own.
  ProfileMemo() = default;
  ProfileMemo(const ProfileMemo& other) : values_(other.locked_values()) {}
  ProfileMemo(ProfileMemo&& other) noexcept : values_(std::move(other.values_)) {}
  ProfileMemo& operator=(const ProfileMemo& other) {
    if (this != &other) values_ = other.locked_values();
    return *this;
  }
  ProfileMemo& operator=(ProfileMemo&& other) noexcept {
    values_ = std::move(other.values_);
    return *this;
  }
  ~ProfileMemo() = default;

  // `compute(&reads_profile)` makes the value and says whether it read the profile.
  const T& get(const MathProfile* profile, bool flush, const std::function<T(bool* reads_profile)>& compute) const {
    const auto key = std::make_pair(profile, flush);
    {
      std::lock_guard lock(mutex_);
      if (auto it = values_.find(key); it != values_.end()) {
        if (it->second.reads_profile) ref::note_profile_read();
        if (it->second.reads_flush) ref::note_flush_read();
        return it->second.value;  // a map's elements stay where they are
      }
    }
    bool reads_profile = false;
    const ref::FlushReads flush_reads;
    T value = compute(&reads_profile);
    std::lock_guard lock(mutex_);
    return values_.emplace(key, Entry{std::move(value), reads_profile, flush_reads.any()}).first->second.value;
  }

 private:
  struct Entry {
    T value;
    bool reads_profile = false;
    bool reads_flush = false;
  };
  using Values = std::map<std::pair<const MathProfile*, bool>, Entry>;
  Values locked_values() const {
    std::lock_guard lock(mutex_);
    return values_;
  }
  mutable std::mutex mutex_;
  mutable Values values_;
};

}  // namespace gp
