#include "harness/large/sampled_reference.hpp"

#include <map>

#include "harness/check/inputs.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/large/complete_check.hpp"
#include "harness/large/complete_lines.hpp"
#include "harness/large/line_statistics.hpp"
#include "reference/streamed_line.hpp"

namespace gp {

namespace {

// The elements `at` of a full tensor, as a tensor of `shape` widened to the reference.
ref::RefTensor gather(const HostTensor& full, const std::vector<std::int64_t>& at, const Shape& shape) {
  return ref::RefTensor::from_host(gather_elements(full, at, shape));
}

// The Tracked evaluation of `s` over the gather of `source`, `tensor` of it.
ref::RefTensor evaluate_slice(const SliceSource& source, const ref::ElementSlice& s, int tensor,
                              const MathProfile* profile, bool flush) {
  const SliceSource::Operands at = source.operands(s);
  return ref::bounded_tensor(s.call, at.inputs, at.cotangent, tensor, profile, flush);
}

}  // namespace

ref::RefTensor sampled_bounds(const SliceSource& source, int tensor, const std::vector<std::int64_t>& index,
                              const MathProfile* profile, bool flush) {
  // Elementwise calls: one evaluation over the gather of every sampled element, not one call per
  // element.
  if (ref::has_elementwise_slices(source.call, tensor) && !index.empty()) {
    ref::RefTensor t =
        evaluate_slice(source, ref::elementwise_slice(source.call, tensor, index), tensor, profile, flush);
    t.shape = Shape{static_cast<std::int64_t>(index.size())};
    return t;
  }
  ref::RefTensor out;
  out.shape = Shape{static_cast<std::int64_t>(index.size())};
  out.v.resize(index.size());
  out.err.resize(index.size());
  // The sampled elements of one line share its slice: evaluated once.
  std::map<std::int64_t, std::vector<std::size_t>> by_line;
  for (std::size_t k = 0; k < index.size(); ++k)
    by_line[ref::slice_key(source.call, tensor, index[k]).line].push_back(k);
  auto element_of = [&](std::size_t k) { return ref::slice_key(source.call, tensor, index[k]).element; };
  for (const auto& [line, positions] : by_line) {
    if (ref::has_streamed_lines(source.call)) {  // a pass over the line, without a copy of it
      std::vector<std::int64_t> elements;
      for (std::size_t k : positions) elements.push_back(element_of(k));
      const ref::RefTensor t =
          ref::bounded_streamed_line(source.call, tensor, line, elements, source.inputs.at(0), source.cotangent,
                                     source.known_statistics(line, profile, flush), profile, flush);
      for (std::size_t p = 0; p < positions.size(); ++p) {
        out.v[positions[p]] = t.v[p];
        out.err[positions[p]] = t.err[p];
      }
      continue;
    }
    const ref::ElementSlice s = ref::element_slice(source.call, tensor, index[positions.front()]);
    const ref::RefTensor t = evaluate_slice(source, s, tensor, profile, flush);
    for (std::size_t k : positions) {
      const auto e = static_cast<std::size_t>(element_of(k));
      out.v[k] = t.v.at(e);
      out.err[k] = t.err.at(e);
    }
  }
  return out;
}

SampledReference prepare_sampled_reference(const Case& c, const RunContext& run) {
  SampledReference r;
  r.call = c.call;
  r.cache = run.reference_cache;
  r.cache_id = c.id;
  r.seed = run.seed;
  r.complete = std::make_shared<CompleteReferences>();
  r.lines = std::make_shared<CompleteLineReferences>();
  r.line_statistics = std::make_shared<LineStatisticsMemo>();
  {
    PhaseTimer timer(Phase::inputs);
    r.inputs = make_inputs(c, run.seed);
    r.cotangent = make_cotangent(c, run.seed);
  }
  // The extremes of every input of the tensor's shape: a max's gradient lives at one of them.
  auto add = [&](int tensor, const Shape& shape, const std::string& name) {
    std::vector<std::int64_t> extremes;
    for (const HostTensor& x : r.inputs)
      if (x.shape() == shape) {
        const std::vector<std::int64_t> e = extreme_indices(x);
        extremes.insert(extremes.end(), e.begin(), e.end());
      }
    r.tensors.push_back(
        {tensor, shape.numel(), sample_elements(shape, run.sample, run.seed, c.id + " " + name, extremes)});
  };
  add(ref::kOutputTensor, c.call.output_shape, "output");
  for (int k = 0; k < static_cast<int>(c.call.input_shapes.size()); ++k)
    if (input_is_differentiable(c.decl.op, k))
      add(k, c.call.input_shapes[static_cast<std::size_t>(k)], "gradient " + std::to_string(k));
  return r;
}

const std::vector<ref::RefTensor>& SampledReference::bounded(const MathProfile* profile, bool flush) const {
  return bounded_.get(profile, flush, [&](bool* reads_profile) {
    CacheKeyBuilder key("sampled-bounded");
    key.add(cache_id);
    key.add(seed);
    for (const HostTensor& t : inputs) key.add(t);
    key.add(cotangent);
    for (const SampledTensor& s : tensors)
      for (std::int64_t i : s.index) key.add(static_cast<std::uint64_t>(i));
    return cached_bounds<std::vector<ref::RefTensor>>(
        cache, key, profile, flush,
        [&] {
          std::vector<ref::RefTensor> out;
          out.reserve(tensors.size());
          for (const SampledTensor& s : tensors)
            out.push_back(sampled_bounds(source(), s.tensor, s.index, profile, flush));
          return out;
        },
        reads_profile);
  });
}

const ref::StreamedLineStatistics* SliceSource::known_statistics(std::int64_t line, const MathProfile* profile,
                                                                 bool flush) const {
  return statistics ? &statistics->get(call, inputs.at(0), line, profile, flush) : nullptr;
}

SliceSource::Operands SliceSource::operands(const ref::ElementSlice& s) const {
  Operands out;
  out.inputs.reserve(s.inputs.size());
  for (std::size_t k = 0; k < s.inputs.size(); ++k)
    out.inputs.push_back(gather(inputs[k], s.inputs[k], s.call.input_shapes[k]));
  out.cotangent = gather(cotangent, s.cotangent, s.call.output_shape);
  return out;
}

SliceSource SampledReference::source() const { return {call, inputs, cotangent, line_statistics.get()}; }

}  // namespace gp
