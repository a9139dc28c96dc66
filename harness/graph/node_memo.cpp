#include "harness/graph/node_memo.hpp"

#include <chrono>
#include <optional>

#include "harness/check/tolerance.hpp"

namespace gp {

namespace {

// Everything of a call that an evaluation reads: the op, its attributes, dtypes and shapes.
CacheKeyBuilder call_key(std::string_view what, const OpCall& call, const std::vector<ref::RefTensor>& in) {
  CacheKeyBuilder key(what);
  key.add(op_name(call.kind)).add(attrs_to_string(call.kind, call.attrs)).add(static_cast<std::uint64_t>(call.dtype));
  for (DType d : call.input_dtypes) key.add(static_cast<std::uint64_t>(d));
  for (const Shape& s : call.input_shapes) key.add(s.to_string());
  for (const ref::RefTensor& t : in) key.add(t);
  return key;
}

std::size_t bytes_of(const ref::RefTensor& t) {
  return t.v.size() * sizeof(long double) + t.err.size() * sizeof(ref::ErrorBound);
}
std::size_t bytes_of(const std::vector<Radii>& radii) {
  std::size_t n = 0;
  for (const Radii& r : radii) n += r.size() * sizeof(long double);
  return n;
}

}  // namespace

Radii radii_of(const ref::RefTensor& t) {
  Radii r(t.err.size());
  for (std::size_t j = 0; j < r.size(); ++j) r[j] = propagated_error(t.err[j]);
  return r;
}

template <class T, class Compute>
T NodeBoundMemo::get(Memo<T>& memo, CacheKeyBuilder key, const MathProfile* profile, bool flush, ReferenceCache* cache,
                     const Compute& compute) {
  if (!profile) return compute();  // the long-double reference's own arithmetic: no device shares it
  CacheKeyBuilder any_mode = key.copy();
  // Every device's key, where an evaluation that met no value where flushing matters is kept, and
  // this flush mode's; devices wait on the first, whichever mode is evaluating.
  const CacheKey every_device = any_mode.add_any_device().key(), mode = key.add_any_profile(flush).key();
  std::unique_lock lock(mutex_);
  for (;;) {
    if (auto it = memo.find(every_device); it != memo.end()) {
      ++counts_.shared;
      return it->second;
    }
    if (auto it = memo.find(mode); it != memo.end()) {
      ++counts_.shared;
      ref::note_flush_read();
      return it->second;
    }
    if (!in_flight_.contains(every_device)) break;
    finished_.wait(lock);  // another device evaluates it: its value may be the one to share
  }
  in_flight_.insert(every_device);
  lock.unlock();
  struct Landed {  // whatever happens, the waiters look again
    NodeBoundMemo& m;
    const CacheKey& k;
    ~Landed() {
      std::lock_guard relock(m.mutex_);
      m.in_flight_.erase(k);
      m.finished_.notify_all();
    }
  };
  const Landed landed{*this, every_device};
  auto keep = [&](const CacheKey& at, const T& value) {  // under the lock
    const std::size_t bytes = bytes_of(value);
    if (bytes_ + bytes <= kCapBytes && memo.emplace(at, value).second) bytes_ += bytes;
  };
  if (cache) {  // made by another process: a device checked in a process of its own
    bool flush_mode_only = false;
    // Not counted: the run's counts are its subjects' entries, this is part of one.
    std::optional<T> read = read_entry<T>(*cache, every_device, ReferenceCache::Tally::nothing);
    if (!read && (read = read_entry<T>(*cache, mode, ReferenceCache::Tally::nothing))) flush_mode_only = true;
    if (read) {
      if (flush_mode_only) ref::note_flush_read();
      std::lock_guard relock(mutex_);
      ++counts_.shared;
      keep(flush_mode_only ? mode : every_device, *read);
      return std::move(*read);
    }
  }
  const ref::ProfileReads reads;
  const ref::FlushReads flush_reads;
  const auto start = std::chrono::steady_clock::now();
  T value = compute();
  const bool worth_storing = std::chrono::steady_clock::now() - start >= store_from_;
  const CacheKey& at = flush_reads.any() ? mode : every_device;
  {
    std::lock_guard relock(mutex_);
    ++counts_.computed;
    if (!reads.any()) keep(at, value);
  }
  if (cache && worth_storing && !reads.any()) store_entry(*cache, at, value);
  return value;
}

ref::RefTensor NodeBoundMemo::forward(const OpCall& call, const std::vector<ref::RefTensor>& in,
                                      const MathProfile* profile, bool flush, ReferenceCache* cache) {
  return get(forward_, call_key("node forward", call, in), profile, flush, cache,
             [&] { return ref::bounded_node_forward(call, in, profile, flush); });
}

std::vector<Radii> NodeBoundMemo::vjp_radii(const OpCall& call, const std::vector<ref::RefTensor>& in,
                                            const ref::RefTensor& dout, const MathProfile* profile, bool flush,
                                            ReferenceCache* cache) {
  CacheKeyBuilder key = call_key("node vjp", call, in);
  key.add(dout);
  return get(vjp_, std::move(key), profile, flush, cache, [&] {
    std::vector<Radii> out;
    for (const auto& g : ref::bounded_node_vjp(call, in, dout, profile, flush)) out.push_back(radii_of(g));
    return out;
  });
}

}  // namespace gp
