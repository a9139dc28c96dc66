// meta.profile of parity.json (schema 1.8; its device_seconds 1.9, peak_host_bytes 1.16): where the run's time went
// (results/profile.hpp).
#pragma once

#include "reports/json_codec.hpp"
#include "results/profile.hpp"

namespace gp {

// {"workers": N, "phases": {"inputs": {"primitive": s, "model": s, "training": s}, ...},
//  "reports_seconds": s}
json_codec::Json profile_to_json(const PhaseProfile& p);
PhaseProfile profile_from_json(const json_codec::FieldReader& r);

}  // namespace gp
