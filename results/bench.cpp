#include "results/bench.hpp"

#include <algorithm>
#include <iterator>

#include "core/enum_table.hpp"
#include "results/bench_names.hpp"

namespace gp {

namespace {
constexpr std::string_view kBenchOutcomeNames[] = {"timed", "skipped", "error"};
static_assert(std::size(kBenchOutcomeNames) == std::size(kAllBenchOutcomes));
constexpr std::string_view kBenchSubjectNames[] = {"primitive", "model", "training", "creation"};
static_assert(std::size(kBenchSubjectNames) == std::size(kAllBenchSubjects));
}  // namespace

std::string_view bench_subject_name(BenchSubject s) { return enum_row(kBenchSubjectNames, s); }
std::optional<BenchSubject> parse_bench_subject(std::string_view name) {
  return enum_from_name<BenchSubject>(name, kBenchSubjectNames);
}

std::string_view bench_call_name(const BenchRow& row) {
  switch (row.subject) {
    case BenchSubject::model:
      return row.direction == Direction::forward ? "forward" : "forward+backward";
    case BenchSubject::training:
      return "step";
    case BenchSubject::creation:
      return "create";
    case BenchSubject::primitive:
      break;
  }
  return direction_name(row.direction);
}

std::string_view bench_outcome_name(BenchOutcome o) { return enum_row(kBenchOutcomeNames, o); }
std::optional<BenchOutcome> parse_bench_outcome(std::string_view name) {
  return enum_from_name<BenchOutcome>(name, kBenchOutcomeNames);
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

double BenchRow::median_seconds() const { return median_of(repetition_seconds); }
double BenchRow::min_seconds() const {
  return repetition_seconds.empty() ? 0 : *std::min_element(repetition_seconds.begin(), repetition_seconds.end());
}
double BenchRow::max_seconds() const {
  return repetition_seconds.empty() ? 0 : *std::max_element(repetition_seconds.begin(), repetition_seconds.end());
}

const DeviceLimit* BenchReport::limit_of(const BenchRow& row) const {
  for (const DeviceLimit& l : limits)
    if (l.device == row.device && l.dtype == row.dtype) return &l;
  return nullptr;
}

double BenchReport::copy_gb_per_s(const BenchRow& row) const {
  const DeviceLimit* l = limit_of(row);
  return l ? l->copy_gb_per_s() : 0;
}

double BenchReport::roofline_fraction(const BenchRow& row) const {
  const DeviceLimit* l = limit_of(row);
  const CallSpeed s = row.speed();
  if (!l || row.subject != BenchSubject::primitive || row.outcome != BenchOutcome::timed || row.flops <= 0 ||
      row.bytes <= 0 || !s.measured())
    return 0;
  const double peak = l->arithmetic_gflop_per_s(), copy = l->copy_gb_per_s();
  if (peak <= 0 || copy <= 0) return 0;
  const double intensity = static_cast<double>(row.flops) / static_cast<double>(row.bytes);
  return s.gflop_per_s() / std::min(peak, copy * intensity);
}

double BenchReport::copy_fraction(const BenchRow& row) const {
  const double copy = copy_gb_per_s(row);
  const CallSpeed s = row.speed();
  if (row.subject != BenchSubject::primitive || row.outcome != BenchOutcome::timed || row.flops > 0 || copy <= 0 ||
      !s.measured())
    return 0;
  return s.gb_per_s() / copy;
}

}  // namespace gp
