#include "harness/check/cached_reference_checks.hpp"

#include <chrono>

#include "harness/check/reference_cache.hpp"

namespace gp {

// Found by the codec templates through argument-dependent lookup: in gp, not in an unnamed
// namespace.
static void encode(BlobWriter& w, const WorstElement& e) {
  encode_fields(w, e.index, e.inputs, e.expected, e.got, e.bound);
}
static void decode(BlobReader& r, WorstElement& e) { decode_fields(r, e.index, e.inputs, e.expected, e.got, e.bound); }

static void encode(BlobWriter& w, const Metrics& m) {
  encode_fields(w, m.max_abs, m.max_rel, m.max_ulp, m.nmse, m.bound, m.margin, m.elements, m.nonfinite, m.worst,
                m.sensitivity_ulp, m.budget_ulp, m.insignificant);
}
static void decode(BlobReader& r, Metrics& m) {
  decode_fields(r, m.max_abs, m.max_rel, m.max_ulp, m.nmse, m.bound, m.margin, m.elements, m.nonfinite, m.worst,
                m.sensitivity_ulp, m.budget_ulp, m.insignificant);
}

static void encode(BlobWriter& w, const TrainingSteps& s) {
  encode_fields(w, s.first_out, s.loss, s.reference, s.bound, s.amplification);
}
static void decode(BlobReader& r, TrainingSteps& s) {
  decode_fields(r, s.first_out, s.loss, s.reference, s.bound, s.amplification);
}

void encode(BlobWriter& w, const CheckResult& c) {
  encode_fields(w, c.case_id, c.op, c.family, c.backend, c.dtype, c.direction, c.input, c.part, c.subject, c.verdict,
                c.reason_kind, c.reason, c.formulation, c.tolerance, c.metrics, c.time_ms, c.seed, c.repro, c.steps);
}
void decode(BlobReader& r, CheckResult& c) {
  decode_fields(r, c.case_id, c.op, c.family, c.backend, c.dtype, c.direction, c.input, c.part, c.subject, c.verdict,
                c.reason_kind, c.reason, c.formulation, c.tolerance, c.metrics, c.time_ms, c.seed, c.repro, c.steps);
}

std::vector<CheckResult> reference_checks(const Subject& subject, const PreparedSubject& prepared,
                                          const RunContext& run) {
  CacheKeyBuilder key("reference-checks");
  key.add(subject.id()).add(run.seed);
  const NumericalOptions& n = run.numerical;
  key.add(static_cast<std::uint64_t>(n.reference_probes))
      .add(static_cast<std::uint64_t>(n.jacobian_max_inputs))
      .add(static_cast<std::uint64_t>(n.jacobian_max_outputs))
      .add(static_cast<std::uint64_t>(n.backend_probes));
  if (const ReferenceData* data = prepared.primitive_data())
    for (const HostTensor& t : data->inputs) key.add(t);
  const auto t0 = std::chrono::steady_clock::now();
  bool read = false;
  std::vector<CheckResult> checks = cached<std::vector<CheckResult>>(
      run.reference_cache, key, Phase::reference_checks, [&] { return prepared.check_reference(run); }, &read);
  if (read && !checks.empty()) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (CheckResult& c : checks) c.time_ms = ms / static_cast<double>(checks.size());
    // A case from a file names its file in the repro line; the same values read from another
    // file (or the same file moved) share the entry.
    if (subject.primitive_case())
      for (CheckResult& c : checks) c.repro = subject.blank("reference", run.seed).repro;
  }
  return checks;
}

}  // namespace gp
