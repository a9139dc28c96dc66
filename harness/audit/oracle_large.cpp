#include "harness/audit/oracle_large.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>

#include "core/error.hpp"
#include "harness/check/tolerance.hpp"
#include "harness/large/sampled_reference.hpp"
#include "reference/element_slice.hpp"
#include "reference/streamed_line.hpp"

namespace gp {

namespace {

// `count` positions of a sample of n elements, spread evenly, its first and last included.
std::vector<std::size_t> spread_positions(std::size_t n, std::int64_t count) {
  std::vector<std::size_t> out;
  if (n == 0 || count <= 0) return out;
  const auto m = std::min<std::size_t>(n, static_cast<std::size_t>(count));
  for (std::size_t j = 0; j < m; ++j) {
    const std::size_t p = m == 1 ? 0 : j * (n - 1) / (m - 1);
    if (out.empty() || out.back() != p) out.push_back(p);
  }
  return out;
}

// A reduction's slice is its whole line: its length, known before the slice's index lists (2^27
// of them for the large tier's longest line) are built.
std::int64_t streamed_line_length(const OpCall& call) {
  const std::int64_t lines = std::max<std::int64_t>(call.output_shape.numel(), 1);
  return call.input_shapes.at(0).numel() / lines;
}

std::int64_t gathered_elements(const ref::ElementSlice& s) {
  std::int64_t n = 0;
  for (const auto& in : s.inputs) n += static_cast<std::int64_t>(in.size());
  return n;
}

// The oracle's `tensor` of the slice (the output, or an input's gradient).
ref::OracleTensor oracle_on_slice(const SliceSource& source, const ref::ElementSlice& s, int tensor) {
  const SliceSource::Operands at = source.operands(s);
  ref::OracleResult o = ref::oracle_evaluate(s.call, at.inputs, at.cotangent);
  return tensor == ref::kOutputTensor ? std::move(o.output) : std::move(o.grads.at(static_cast<std::size_t>(tensor)));
}

// One element of a slice's oracle tensor, as a tensor of one.
ref::OracleTensor element_of(const ref::OracleTensor& t, std::int64_t e) {
  ref::OracleTensor one;
  one.shape = Shape{1};
  one.hi = {t.hi.at(static_cast<std::size_t>(e))};
  one.lo = {t.lo.at(static_cast<std::size_t>(e))};
  return one;
}

// The compared tensor's sampled reference under each device's profile, and the tightest bound
// any of them gets at a sample position.
class SampledTightestBound {
 public:
  SampledTightestBound(const Case& c, const SampledReference& reference, std::size_t tensor,
                       const std::vector<DeviceMath>& devices) {
    for (const DeviceMath& d : devices_or_every_provider(devices)) {
      tolerances_.push_back(tolerance_for(c, *d.profile, d.flush));
      bounded_.push_back(&reference.bounded(d.profile, d.flush).at(tensor));
    }
    if (bounded_.empty()) throw Error(c.id + ": no device math profile to bound the oracle check by");
  }
  const ref::RefTensor& values() const { return *bounded_.front(); }
  double operator()(std::size_t p) const {
    double b = std::numeric_limits<double>::infinity();
    for (std::size_t d = 0; d < bounded_.size(); ++d)
      b = std::min(b, tolerances_[d].bound(bounded_[d]->err.at(p), static_cast<double>(bounded_[d]->v.at(p))));
    return b;
  }

 private:
  std::vector<Tolerance> tolerances_;
  std::vector<const ref::RefTensor*> bounded_;
};

// Compares `positions` of sampled tensor `t` with the oracle on their slices; returns the elements
// left out because their slices are longer than the options allow.
std::int64_t compare_tensor(const Case& c, const SampledReference& reference, std::size_t t,
                            const std::vector<std::size_t>& positions, const LargeOracleOptions& opts,
                            OracleDirection& into) {
  const SampledTensor& s = reference.tensors[t];
  const SampledTightestBound tightest(c, reference, t, opts.devices);
  const auto bound = [&](std::size_t p) { return tightest(p); };
  const SliceSource source = reference.source();
  if (ref::has_elementwise_slices(reference.call, s.tensor)) {
    std::vector<std::int64_t> index;
    index.reserve(positions.size());
    for (std::size_t p : positions) index.push_back(s.index[p]);
    const ref::ElementSlice slice = ref::elementwise_slice(reference.call, s.tensor, index);
    const std::vector<std::int64_t> map(positions.begin(), positions.end());
    compare_with_oracle(bound, tightest.values(), oracle_on_slice(source, slice, s.tensor), map, into);
    return 0;
  }
  std::int64_t skipped = 0;
  const bool whole_lines = ref::has_streamed_lines(reference.call);
  // The elements of one line (a softmax row) share its slice: its oracle is evaluated once.
  std::map<std::int64_t, std::optional<ref::OracleTensor>> line_oracle;  // nullopt: over the limit
  for (std::size_t p : positions) {
    const ref::SliceKey key = ref::slice_key(reference.call, s.tensor, s.index[p]);
    auto it = line_oracle.find(key.line);
    if (it == line_oracle.end()) {
      std::optional<ref::OracleTensor> oracle;
      if (!whole_lines || streamed_line_length(reference.call) <= opts.max_slice_elements) {
        const ref::ElementSlice slice = ref::element_slice(reference.call, s.tensor, s.index[p]);
        if (gathered_elements(slice) <= opts.max_slice_elements) oracle = oracle_on_slice(source, slice, s.tensor);
      }
      it = line_oracle.emplace(key.line, std::move(oracle)).first;
    }
    if (!it->second) {
      ++skipped;
      continue;
    }
    compare_with_oracle(bound, tightest.values(), element_of(*it->second, key.element), {static_cast<std::int64_t>(p)},
                        into);
  }
  return skipped;
}

}  // namespace

OracleCaseResult oracle_check_large_case(const Case& c, const SampledReference& reference,
                                         const LargeOracleOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  OracleCaseResult r;
  r.case_id = c.id;
  r.op_label = oracle_op_label(c);
  for (std::size_t t = 0; t < reference.tensors.size(); ++t) {
    const SampledTensor& s = reference.tensors[t];
    OracleDirection d;
    d.direction = s.tensor == ref::kOutputTensor ? Direction::forward : Direction::backward;
    d.input = s.tensor;
    r.points_skipped += compare_tensor(c, reference, t, spread_positions(s.index.size(), opts.points), opts, d);
    if (d.points == 0) continue;
    // compare_with_oracle names a sample position: the report names the element of the tensor.
    d.worst_index = s.index.at(static_cast<std::size_t>(d.worst_index));
    r.points += d.points;
    r.directions.push_back(d);
  }
  r.skipped = r.points == 0;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gp
