// ProfileMemo<T>: a subject's values per device profile and flush mode (its bounds), computed on
// first use and kept for the life of the subject's reference data. A value whose computation read
// its profile counts as a read again each time it is handed out (ref::note_profile_read), so an
// evaluation built on it is never taken for one that every profile shares (cached_bounds).
#pragma once

#include <functional>
#include <map>
#include <utility>

#include "core/math_profile.hpp"
#include "reference/tracked.hpp"

namespace gp {

template <class T>
class ProfileMemo {
 public:
  // `compute(&reads_profile)` makes the value and says whether it read the profile.
  const T& get(const MathProfile* profile, bool flush, const std::function<T(bool* reads_profile)>& compute) const {
    const auto key = std::make_pair(profile, flush);
    auto it = values_.find(key);
    if (it == values_.end()) {
      bool reads_profile = false;
      T value = compute(&reads_profile);
      it = values_.emplace(key, Entry{std::move(value), reads_profile}).first;
    } else if (it->second.reads_profile) {
      ref::note_profile_read();
    }
    return it->second.value;
  }

 private:
  struct Entry {
    T value;
    bool reads_profile = false;
  };
  mutable std::map<std::pair<const MathProfile*, bool>, Entry> values_;
};

}  // namespace gp
