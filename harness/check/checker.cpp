#include "harness/check/checker.hpp"

#include "harness/check/inputs.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/check/reference_cache.hpp"

namespace gp {

namespace {
std::string shell_quote(const std::string& s) { return "'" + s + "'"; }
}  // namespace

CheckResult blank_result(const Case& c, const std::string& device_id, Direction d, int input, std::uint64_t seed) {
  CheckResult r;
  r.case_id = c.id;
  r.op = std::string(op_name(c.decl.op));
  r.family = c.family();
  r.backend = device_id;
  r.dtype = c.dtype;
  r.direction = d;
  r.input = input;
  r.seed = seed;
  std::string backend = device_id == "reference" ? "cpu" : device_id;
  r.repro = "gradparity repro " + shell_quote(c.id) + " --backend " + backend + " --seed " + std::to_string(seed);
  if (c.given && !c.given->file.empty()) r.repro += " --cases-file " + shell_quote(c.given->file);
  return r;
}

ReferenceData prepare_reference(const Case& c, std::uint64_t seed, ReferenceCache* cache) {
  ReferenceData d;
  d.cache = cache;
  d.cache_id = c.id;
  {
    PhaseTimer timer(Phase::inputs);
    d.inputs = make_inputs(c, seed);
    d.cotangent = make_cotangent(c, seed);
  }
  PhaseTimer timer(Phase::reference);
  for (const auto& t : d.inputs) d.ref_inputs.push_back(ref::RefTensor::from_host(t));
  d.ref_cotangent = ref::RefTensor::from_host(d.cotangent);
  d.output = ref::forward(c.call, d.ref_inputs);
  d.grads = ref::vjp(c.call, d.ref_inputs, d.output, d.ref_cotangent);
  d.call = c.call;
  return d;
}

const ref::Bounded& ReferenceData::bounded(const MathProfile* profile, bool flush) const {
  return bounded_.get(profile, flush, [&](bool* reads_profile) {
    return bounded_for_cotangent(*this, ref_cotangent, profile, flush, reads_profile);
  });
}

namespace {
CacheKeyBuilder bounds_key(std::string_view what, const ReferenceData& data, const ref::RefTensor& cotangent) {
  CacheKeyBuilder key(what);
  key.add(data.cache_id);
  for (const HostTensor& t : data.inputs) key.add(t);
  key.add(cotangent);
  return key;
}
}  // namespace

ref::Bounded bounded_for_cotangent(const ReferenceData& data, const ref::RefTensor& cotangent,
                                   const MathProfile* profile, bool flush, bool* reads_profile) {
  CacheKeyBuilder key = bounds_key("bounded", data, cotangent);
  return cached_bounds<ref::Bounded>(
      data.cache, key, profile, flush,
      [&] { return ref::bounded_evaluate(data.call, data.ref_inputs, cotangent, profile, flush); }, reads_profile);
}

ref::Bounded bounded_gradients_for_cotangent(const ReferenceData& data, const ref::RefTensor& cotangent,
                                             const MathProfile* profile, bool flush) {
  CacheKeyBuilder key = bounds_key("bounded gradients", data, cotangent);
  return cached_bounds<ref::Bounded>(data.cache, key, profile, flush, [&] {
    ref::Bounded b;
    b.grads = ref::bounded_gradients(data.call, data.ref_inputs, cotangent, profile, flush);
    return b;
  });
}

}  // namespace gp
