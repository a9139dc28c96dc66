// NodeBoundMemo: a model's node evaluations in Tracked arithmetic that every device profile
// shares. An evaluation that read no budget of its profile (ref::ProfileReads: a matmul, an add,
// a sum; not an exp) is the same under every device profile of its dtype and flush mode, and one
// that also met no value where flushing matters (ref::FlushReads) under both flush modes, so the
// recording pass of a model's or a training run's probes (composite_bound.cpp), which evaluates
// every node at the reference's exact inputs, makes it once for cpu, OpenCL and Vulkan instead
// of once per device. Bit for bit what each evaluation computes: the key is everything it reads
// (the call, its inputs' values and errors, the cotangent, and the flush mode where it read it).
// An evaluation that read its profile is not kept, nor is the long-double reference's own (no
// profile). With a reference cache, the evaluations it keeps are also read from and written to
// the cache folder (the same keys), so that devices checked in separate processes share them
// too: each ctest entry is one device, and the cpu entry of a model makes them for its OpenCL
// and Vulkan entries (the models' ctest entries on a fresh cache, 2-core: 174 s before, 156 s).
// The path-by-path pass does not use it: its inputs carry the errors of the nodes before, which
// differ between profiles after the first node that reads one (measured: no time saved, 75 MB
// more). Thread-safe: the devices of a model run on different workers at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "core/math_profile.hpp"
#include "core/op.hpp"
#include "harness/check/reference_cache.hpp"
#include "reference/reference.hpp"

namespace gp {

// An element's bound as one number (propagated_error, harness/check/tolerance.hpp).
using Radii = std::vector<long double>;
Radii radii_of(const ref::RefTensor& t);

class NodeBoundMemo {
 public:
  NodeBoundMemo() = default;
  // `store_from`: see kStoreFrom (tests store every evaluation).
  explicit NodeBoundMemo(std::chrono::microseconds store_from) : store_from_(store_from) {}
  // Moved only while one thread has it (a subject's reference data being returned).
  NodeBoundMemo(NodeBoundMemo&& other) noexcept
      : store_from_(other.store_from_),
        forward_(std::move(other.forward_)),
        vjp_(std::move(other.vjp_)),
        bytes_(other.bytes_),
        counts_(other.counts_) {}
  NodeBoundMemo& operator=(NodeBoundMemo&& other) noexcept {
    store_from_ = other.store_from_;
    forward_ = std::move(other.forward_);
    vjp_ = std::move(other.vjp_);
    bytes_ = other.bytes_;
    counts_ = other.counts_;
    return *this;
  }

  // The node's output with its own bound at `in` (ref::bounded_node_forward).
  // `cache`, when given, is tried before computing and given what is computed (see above).
  ref::RefTensor forward(const OpCall& call, const std::vector<ref::RefTensor>& in, const MathProfile* profile,
                         bool flush, ReferenceCache* cache = nullptr);
  // The radii of its gradients' own bounds at `in` and `dout` (ref::bounded_node_vjp): what the
  // probes read of them, a fifth of the gradients' size.
  std::vector<Radii> vjp_radii(const OpCall& call, const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout,
                               const MathProfile* profile, bool flush, ReferenceCache* cache = nullptr);

  // What one memo keeps at most (it lives as long as its subject, two of them at once under -j 2).
  // The models of the default run, 2 cores: 128 MB took 116 s and 528 MB at the peak, 32 MB
  // 114 s and 468 MB: the evaluations that no longer fit are the large and cheap ones.
  static constexpr std::size_t kCapBytes = std::size_t{32} << 20;

  // An evaluation faster than this is not written to the cache folder: reading it back would cost
  // about as much (an entry's file, its checksum, its decompression).
  static constexpr std::chrono::microseconds kStoreFrom{1000};

  struct Counts {
    std::int64_t shared = 0, computed = 0;  // evaluations handed out from the memo / made
  };
  Counts counts() const {
    std::lock_guard lock(mutex_);
    return counts_;
  }

 private:
  struct Less {
    bool operator()(const CacheKey& a, const CacheKey& b) const {
      return std::pair(a.high, a.low) < std::pair(b.high, b.low);
    }
  };
  template <class T>
  using Memo = std::map<CacheKey, T, Less>;
  template <class T, class Compute>
  T get(Memo<T>& memo, CacheKeyBuilder key, const MathProfile* profile, bool flush, ReferenceCache* cache,
        const Compute& compute);

  // Guards the memos, in_flight_, bytes_ and counts_: a model's devices run on different workers
  // at once. A device that needs an evaluation another is making waits for it (finished_) rather
  // than making it too: on 2 cores the duplicates cost more than the waits.
  std::chrono::microseconds store_from_ = kStoreFrom;
  mutable std::mutex mutex_;
  std::condition_variable finished_;
  std::set<CacheKey, Less> in_flight_;
  Memo<ref::RefTensor> forward_;
  Memo<std::vector<Radii>> vjp_;
  std::size_t bytes_ = 0;
  Counts counts_;
};

}  // namespace gp
