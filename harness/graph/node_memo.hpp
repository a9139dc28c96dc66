// NodeBoundMemo: a model's node evaluations in Tracked arithmetic that every device profile
// shares. An evaluation that read no budget of its profile (ref::ProfileReads: a matmul, an add,
// a sum; not an exp) is the same under every device profile of its dtype and flush mode, so the
// recording pass of a model's or a training run's probes (composite_bound.cpp), which evaluates
// every node at the reference's exact inputs, makes it once for cpu, OpenCL and Vulkan instead
// of once per device. Bit for bit what each evaluation computes: the key is everything it reads
// (the call, its inputs' values and errors, the cotangent, the flush mode). An evaluation that
// read its profile is not kept, nor is the long-double reference's own (no profile). The
// path-by-path pass does not use it: its inputs carry the errors of the nodes before, which
// differ between profiles after the first node that reads one (measured: no time saved, 75 MB
// more). One thread uses it at a time, as the CompositeReference that holds it.
#pragma once

#include <map>
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
  // The node's output with its own bound at `in` (ref::bounded_node_forward).
  ref::RefTensor forward(const OpCall& call, const std::vector<ref::RefTensor>& in, const MathProfile* profile,
                         bool flush);
  // The radii of its gradients' own bounds at `in` and `dout` (ref::bounded_node_vjp): what the
  // probes read of them, a fifth of the gradients' size.
  std::vector<Radii> vjp_radii(const OpCall& call, const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout,
                               const MathProfile* profile, bool flush);

  // What one memo keeps at most (it lives as long as its subject, two of them at once under -j 2).
  // The models of the default run, 2 cores: 128 MB took 116 s and 528 MB at the peak, 32 MB
  // 114 s and 468 MB: the evaluations that no longer fit are the large and cheap ones.
  static constexpr std::size_t kCapBytes = std::size_t{32} << 20;

  struct Counts {
    std::int64_t shared = 0, computed = 0;  // evaluations handed out from the memo / made
  };
  Counts counts() const { return counts_; }

 private:
  struct Less {
    bool operator()(const CacheKey& a, const CacheKey& b) const {
      return std::pair(a.high, a.low) < std::pair(b.high, b.low);
    }
  };
  template <class T>
  using Memo = std::map<CacheKey, T, Less>;
  template <class T, class Compute>
  T get(Memo<T>& memo, CacheKeyBuilder key, const MathProfile* profile, bool flush, const Compute& compute);

  Memo<ref::RefTensor> forward_;
  Memo<std::vector<Radii>> vjp_;
  std::size_t bytes_ = 0;
  Counts counts_;
};

}  // namespace gp
