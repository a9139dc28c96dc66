#include "harness/graph/node_memo.hpp"

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

}  // namespace

template <class Compute>
std::vector<ref::RefTensor> NodeBoundMemo::get(CacheKeyBuilder key, const MathProfile* profile, bool flush,
                                               const Compute& compute) {
  if (!profile) return compute();  // the long-double reference's own arithmetic: no device shares it
  const CacheKey k = key.add_any_profile(flush).key();
  if (auto it = shared_.find(k); it != shared_.end()) {
    ++counts_.shared;
    return it->second;
  }
  const ref::ProfileReads reads;
  std::vector<ref::RefTensor> value = compute();
  ++counts_.computed;
  if (reads.any()) return value;
  std::size_t bytes = 0;
  for (const ref::RefTensor& t : value)
    bytes += t.v.size() * sizeof(long double) + t.err.size() * sizeof(ref::ErrorBound);
  if (bytes_ + bytes <= kCapBytes) {
    bytes_ += bytes;
    shared_.emplace(k, value);
  }
  return value;
}

ref::RefTensor NodeBoundMemo::forward(const OpCall& call, const std::vector<ref::RefTensor>& in,
                                      const MathProfile* profile, bool flush) {
  return get(call_key("node forward", call, in), profile, flush,
             [&] { return std::vector<ref::RefTensor>{ref::bounded_node_forward(call, in, profile, flush)}; })
      .front();
}

std::vector<ref::RefTensor> NodeBoundMemo::vjp(const OpCall& call, const std::vector<ref::RefTensor>& in,
                                               const ref::RefTensor& dout, const MathProfile* profile, bool flush) {
  CacheKeyBuilder key = call_key("node vjp", call, in);
  key.add(dout);
  return get(std::move(key), profile, flush, [&] { return ref::bounded_node_vjp(call, in, dout, profile, flush); });
}

}  // namespace gp
