// The oracle's sampled check of a case, kept in the reference cache: MPFR at 168 bits on the
// sampled elements and their sub-problems is the same in every run of one build at one seed.
#include <chrono>

#include "harness/audit/oracle_check.hpp"
#include "harness/audit/oracle_large.hpp"
#include "harness/check/cache_blob.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/large/sampled_reference.hpp"

namespace gp {

// Found by the codec templates through argument-dependent lookup: in gp, not in an unnamed
// namespace.
static void encode(BlobWriter& w, const OracleDirection& d) {
  encode_fields(w, d.direction, d.input, d.points, d.worst_ratio, d.worst_index, d.worst_inputs, d.reference, d.oracle,
                d.bound, d.max_rel);
}
static void decode(BlobReader& r, OracleDirection& d) {
  decode_fields(r, d.direction, d.input, d.points, d.worst_ratio, d.worst_index, d.worst_inputs, d.reference, d.oracle,
                d.bound, d.max_rel);
}
static void encode(BlobWriter& w, const OracleCaseResult& c) {
  encode_fields(w, c.case_id, c.op_label, c.directions, c.points, c.seconds, c.error, c.skipped);
}
static void decode(BlobReader& r, OracleCaseResult& c) {
  decode_fields(r, c.case_id, c.op_label, c.directions, c.points, c.seconds, c.error, c.skipped);
}

// A large case's result has its skipped elements too (a blob of its own key, so that the small
// cases' entries keep their layout).
struct LargeOracleBlob {
  OracleCaseResult result;
};
static void encode(BlobWriter& w, const LargeOracleBlob& b) {
  encode(w, b.result);
  encode_fields(w, b.result.points_skipped);
}
static void decode(BlobReader& r, LargeOracleBlob& b) {
  decode(r, b.result);
  decode_fields(r, b.result.points_skipped);
}

OracleCaseResult cached_oracle_check_case(const Case& c, const ReferenceData& data, const RunContext& run,
                                          const OracleOptions& opts) {
  CacheKeyBuilder key("oracle-sample");
  key.add(c.id).add(run.seed);
  for (const HostTensor& t : data.inputs) key.add(t);
  key.add(static_cast<std::uint64_t>(opts.sample))
      .add(static_cast<std::uint64_t>(opts.all))
      .add(static_cast<std::uint64_t>(opts.max_full));
  for (const DeviceMath& d : opts.devices) key.add(d.profile, d.flush);
  const auto t0 = std::chrono::steady_clock::now();
  bool read = false;
  // Without devices the oracle takes every compiled-in provider's profile, which the key does not
  // name (builds of other options share the folder): computed then.
  ReferenceCache* cache = opts.devices.empty() ? nullptr : run.reference_cache;
  OracleCaseResult result = cached<OracleCaseResult>(
      cache, key, Phase::oracle_sample, [&] { return oracle_check_case(c, data, run.seed, opts); }, &read);
  if (read) result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

OracleCaseResult cached_oracle_check_large_case(const Case& c, const SampledReference& reference, const RunContext& run,
                                                const LargeOracleOptions& opts) {
  CacheKeyBuilder key("oracle-large");
  key.add(c.id).add(run.seed);
  for (const HostTensor& t : reference.inputs) key.add(t);
  key.add(reference.cotangent);
  for (const SampledTensor& s : reference.tensors)
    for (std::int64_t i : s.index) key.add(static_cast<std::uint64_t>(i));
  key.add(static_cast<std::uint64_t>(opts.points)).add(static_cast<std::uint64_t>(opts.max_slice_elements));
  for (const DeviceMath& d : opts.devices) key.add(d.profile, d.flush);
  const auto t0 = std::chrono::steady_clock::now();
  bool read = false;
  ReferenceCache* cache = opts.devices.empty() ? nullptr : run.reference_cache;  // as above
  LargeOracleBlob blob = cached<LargeOracleBlob>(
      cache, key, Phase::oracle_sample, [&] { return LargeOracleBlob{oracle_check_large_case(c, reference, opts)}; },
      &read);
  if (read) blob.result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return blob.result;
}

}  // namespace gp
