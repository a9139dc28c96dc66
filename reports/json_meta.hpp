// Internal to reports/: the run metadata's JSON (parity.json's "meta", also bench.json's), one
// writer and one reader for both documents.
#pragma once

#include "reports/json_codec.hpp"
#include "results/result.hpp"

namespace gp {

json_codec::Json device_to_json(const DeviceSummary& d);
// The 1.0 fields; parity.json adds its later ones where they say something.
json_codec::Json meta_to_json(const RunMetadata& m);

DeviceSummary device_from_json(const json_codec::FieldReader& r);
// Throws gp::Error unless doc[key] is "MAJOR.MINOR" with MAJOR == major_wanted (`written`: the
// version this gradparity writes, for the message).
void check_schema_major(const json_codec::FieldReader& doc, std::string_view key, int major_wanted,
                        std::string_view written);
RunMetadata meta_from_json(const json_codec::FieldReader& r);

}  // namespace gp
