// The oracle's sampled check of a case, kept in the reference cache: MPFR at 168 bits on the
// sampled elements and their sub-problems is the same in every run of one build at one seed.
#include <chrono>

#include "harness/audit/oracle_check.hpp"
#include "harness/check/cache_blob.hpp"
#include "harness/check/reference_cache.hpp"

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

}  // namespace gp
