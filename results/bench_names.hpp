// The schema names of bench.json's enums and their parsers (results/bench.hpp declares the
// writer): part of the schema, never renamed.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "results/bench.hpp"

namespace gp {

inline constexpr BenchOutcome kAllBenchOutcomes[] = {BenchOutcome::timed, BenchOutcome::skipped, BenchOutcome::error};

inline constexpr BenchSubject kAllBenchSubjects[] = {BenchSubject::primitive, BenchSubject::model,
                                                     BenchSubject::training, BenchSubject::creation};

std::optional<BenchOutcome> parse_bench_outcome(std::string_view name);  // "timed" -> BenchOutcome::timed
std::optional<BenchSubject> parse_bench_subject(std::string_view name);  // "model" -> BenchSubject::model

// The median of the values (the mean of the two middle ones for an even count); 0 for none.
double median_of(std::vector<double> values);

}  // namespace gp
