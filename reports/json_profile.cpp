#include "reports/json_profile.hpp"

#include "core/error.hpp"
#include "results/result_names.hpp"

namespace gp {

using json_codec::encode_number;
using json_codec::FieldReader;
using json_codec::Json;
using json_codec::Need;

Json profile_to_json(const PhaseProfile& p) {
  Json phases = Json::object();
  for (Phase ph : kAllPhases) {
    Json kinds = Json::object();
    for (SubjectKind k : kAllSubjectKinds) kinds[std::string(subject_kind_name(k))] = encode_number(p.at(ph, k));
    phases[std::string(phase_name(ph))] = std::move(kinds);
  }
  Json out = {
      {"workers", p.workers}, {"phases", std::move(phases)}, {"reports_seconds", encode_number(p.reports_seconds)}};
  if (p.device_total() > 0) {  // 1.9
    Json device = Json::object();
    for (SubjectKind k : kAllSubjectKinds)
      device[std::string(subject_kind_name(k))] = encode_number(p.device_seconds[static_cast<std::size_t>(k)]);
    out["device_seconds"] = std::move(device);
  }
  if (p.peak_host_bytes > 0) out["peak_host_bytes"] = p.peak_host_bytes;  // 1.16
  return out;
}

PhaseProfile profile_from_json(const FieldReader& r) {
  PhaseProfile p;
  p.workers = static_cast<int>(r.int64("workers", 0));
  p.reports_seconds = r.number("reports_seconds");
  const FieldReader phases = r.object("phases");
  for (Phase ph : kAllPhases) {
    if (!phases.has(phase_name(ph))) continue;  // a phase a newer writer split off reads as zero
    const FieldReader kinds = phases.object(phase_name(ph));
    for (SubjectKind k : kAllSubjectKinds) p.at(ph, k) = kinds.number(subject_kind_name(k));
  }
  if (r.has("device_seconds")) {
    const FieldReader device = r.object("device_seconds");
    for (SubjectKind k : kAllSubjectKinds)
      p.device_seconds[static_cast<std::size_t>(k)] = device.number(subject_kind_name(k));
  }
  p.peak_host_bytes = r.int64("peak_host_bytes", 0);
  return p;
}

}  // namespace gp
