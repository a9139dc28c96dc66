// ProfileMemo<T>: a subject's values per device profile and flush mode (its bounds), computed on
// first use and kept for the life of the subject's reference data. A value whose computation read
// no budget of its profile is the same under every device profile of its flush mode, and one that
// also met no value where flushing matters the same under both flush modes (cached_bounds'
// reasoning, reference_cache.hpp): it is kept once for all of them, so a subject's devices share
// it even where no cache folder does (`--no-reference-cache`). The long-double reference's own
// (no profile) is kept apart. A value whose computation read its profile counts as a read again
// each time it is handed out (ref::note_profile_read), so an evaluation built on it is never
// taken for one that every profile shares; one that met a value where flushing matters likewise
// (ref::note_flush_read).
// Thread-safe: a model's devices run on different workers at once (harness/run/work_items.hpp);
// a value is computed outside the lock, and by two threads at once only for one key, where the
// first to finish is kept (both computed the same).
#pragma once

#include <compare>
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
    const Key own{Scope::own, profile, flush}, any_profile{Scope::any_profile, nullptr, flush},
        any_device{Scope::any_device, nullptr, false};
    {
      std::lock_guard lock(mutex_);
      for (const Key& key : {own, any_profile, any_device}) {
        if (key.scope != Scope::own && !profile) break;  // the reference's own is never shared
        if (auto it = values_.find(key); it != values_.end()) {
          if (it->second.reads_profile) ref::note_profile_read();
          if (it->second.reads_flush) ref::note_flush_read();
          return it->second.value;  // a map's elements stay where they are
        }
      }
    }
    bool reads_profile = false;
    const ref::FlushReads flush_reads;
    T value = compute(&reads_profile);
    const bool reads_flush = flush_reads.any();
    const Key& key = !profile || reads_profile ? own : reads_flush ? any_profile : any_device;
    std::lock_guard lock(mutex_);
    return values_.emplace(key, Entry{std::move(value), reads_profile, reads_flush}).first->second.value;
  }

 private:
  struct Entry {
    T value;
    bool reads_profile = false;
    bool reads_flush = false;
  };
  // A value of one profile and flush mode, of every profile of a flush mode, or of every device.
  enum class Scope : int { own, any_profile, any_device };
  struct Key {
    Scope scope;
    const MathProfile* profile;
    bool flush;
    auto operator<=>(const Key&) const = default;
  };
  using Values = std::map<Key, Entry>;
  Values locked_values() const {
    std::lock_guard lock(mutex_);
    return values_;
  }
  mutable std::mutex mutex_;
  mutable Values values_;
};

}  // namespace gp
