// bench.json: what `gradparity bench` measured, machine-readable (schema: SCHEMA.md,
// "bench.json"; versioned like parity.json, "MAJOR.MINOR", a minor version only adds fields).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "results/bench.hpp"

namespace gp {

inline constexpr int kBenchSchemaMajor = 1;
inline constexpr std::string_view kBenchSchemaVersion = "1.1";

std::string bench_to_json_text(const BenchReport& report);
// Throws gp::Error naming `source` and the offending field; refuses another major version.
BenchReport bench_from_json_text(std::string_view text, std::string_view source = "bench.json");
// Whether a JSON document is a bench.json (its "bench_schema_version"), not a parity.json.
bool is_bench_json_text(std::string_view text);

void write_bench_json(const std::filesystem::path& path, const BenchReport& report);
BenchReport read_bench_json(const std::filesystem::path& path);

}  // namespace gp
