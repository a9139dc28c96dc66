// parity.json: the machine-readable report. The schema is written down in reports/SCHEMA.md and
// versioned "MAJOR.MINOR": a minor version only adds fields (old readers ignore them), a major
// version changes or removes some (old readers refuse the file).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "results/result.hpp"

namespace gp {

inline constexpr int kParitySchemaMajor = 1;
inline constexpr int kParitySchemaMinor = 17;
// 1.1 added "stress"; 1.2 meta.catalog and meta.interrupted; 1.3 meta.reference_accuracy; 1.4
// sensitivity; 1.5 composite models; 1.6 training runs' steps; 1.7 typed subjects and reasons;
// 1.8 meta.profile; 1.9 its device time; 1.10 checks' tensor_elements (a sampled comparison);
// 1.11 checks' speed (the large tier's call times, bytes and operations); 1.12 checks' expected
// (a failure the run's --expect file accounts for); 1.13 complete checks; 1.14 checks'
// insignificant (elements without a significant digit); 1.15 refusals; 1.16 memory; 1.17
// meta.reference_accuracy.points_skipped (the large tier's oracle check)
inline constexpr std::string_view kParitySchemaVersion = "1.17";

// The whole document as text (2-space indented, UTF-8, trailing newline).
std::string report_to_json_text(const RunReport& report);
// Parses a document; throws gp::Error on malformed JSON, a schema major version other than
// kParitySchemaMajor, or a field of the wrong type ("checks[3].verdict: unknown verdict ...").
// `source` names the document in messages (usually its path).
RunReport report_from_json_text(std::string_view text, std::string_view source = "parity.json");

void write_parity_json(const std::filesystem::path& path, const RunReport& report);
RunReport read_parity_json(const std::filesystem::path& path);

}  // namespace gp
