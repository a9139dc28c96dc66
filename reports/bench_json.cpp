// Writer and reader of bench.json. Field names and their order follow SCHEMA.md ("bench.json");
// a change here is a schema change (kBenchSchemaVersion) and SCHEMA.md changes with it.
#include "reports/bench_json.hpp"

#include "core/error.hpp"
#include "reports/file_io.hpp"
#include "reports/json_codec.hpp"
#include "reports/json_meta.hpp"
#include "results/bench_names.hpp"
#include "results/result_names.hpp"

namespace gp {

using json_codec::encode_number;
using json_codec::FieldReader;
using json_codec::Json;
using json_codec::Need;

namespace {

constexpr std::string_view kVersionKey = "bench_schema_version";

Json accuracy_to_json(const std::optional<RowAccuracy>& a) {
  if (!a) return nullptr;
  return {{"verdict", verdict_name(a->verdict)},
          {"margin", encode_number(a->margin)},
          {"sensitivity_ulp", encode_number(a->sensitivity_ulp)},
          {"checks", a->checks}};
}

std::optional<RowAccuracy> row_accuracy_from_json(const FieldReader& row) {
  if (!row.has("accuracy")) return std::nullopt;
  const FieldReader r = row.object("accuracy");
  RowAccuracy a;
  const std::string verdict = r.string("verdict", Need::required);
  const auto v = parse_verdict(verdict);
  if (!v) throw Error(r.path_of("verdict") + ": unknown verdict \"" + verdict + "\"");
  a.verdict = *v;
  a.margin = r.number("margin");
  a.sensitivity_ulp = r.number("sensitivity_ulp");
  a.checks = static_cast<int>(r.int64("checks", 0));
  return a;
}

Json row_to_json(const BenchRow& r, const BenchReport& report) {
  const CallSpeed speed = r.speed();
  Json reps = Json::array();
  for (double s : r.repetition_seconds) reps.push_back(encode_number(s));
  return {{"case_id", r.case_id},
          {"op", r.op},
          {"dtype", r.dtype},
          {"device", r.device},
          {"direction", direction_name(r.direction)},
          {"subject", bench_subject_name(r.subject)},
          {"outcome", bench_outcome_name(r.outcome)},
          {"reason", r.reason},
          {"timer", r.device_timer ? "device" : "host"},
          {"calls_per_repetition", r.calls_per_repetition},
          {"repetition_seconds", std::move(reps)},
          {"median_seconds", encode_number(r.median_seconds())},
          {"min_seconds", encode_number(r.min_seconds())},
          {"max_seconds", encode_number(r.max_seconds())},
          {"bytes", r.bytes},
          {"flops", r.flops},
          {"gb_per_s", encode_number(speed.measured() ? speed.gb_per_s() : 0)},
          {"gflop_per_s", encode_number(speed.measured() ? speed.gflop_per_s() : 0)},
          {"copy_fraction", encode_number(report.copy_fraction(r))},
          {"roofline_fraction", encode_number(report.roofline_fraction(r))},
          {"accuracy", accuracy_to_json(r.accuracy)}};
}

BenchRow row_from_json(const FieldReader& r) {
  BenchRow row;
  row.case_id = r.string("case_id", Need::required);
  row.op = r.string("op");
  row.dtype = r.string("dtype");
  row.device = r.string("device", Need::required);
  const std::string direction = r.string("direction", Need::required);
  const auto d = parse_direction(direction);
  if (!d || (*d != Direction::forward && *d != Direction::backward))
    throw Error(r.path_of("direction") + ": unknown value \"" + direction + "\" (expected forward or backward)");
  row.direction = *d;
  std::string subject = r.string("subject");
  if (subject.empty()) subject = "primitive";  // before 1.1: primitives only
  const auto sub = parse_bench_subject(subject);
  if (!sub)
    throw Error(r.path_of("subject") + ": unknown value \"" + subject +
                "\" (expected primitive, model, training or creation)");
  row.subject = *sub;
  const std::string outcome = r.string("outcome", Need::required);
  const auto o = parse_bench_outcome(outcome);
  if (!o) throw Error(r.path_of("outcome") + ": unknown value \"" + outcome + "\" (expected timed, skipped or error)");
  row.outcome = *o;
  row.reason = r.string("reason");
  row.device_timer = r.string("timer") == "device";
  row.calls_per_repetition = r.int64("calls_per_repetition", 0);
  row.repetition_seconds = r.numbers("repetition_seconds");
  row.bytes = r.int64("bytes", 0);
  row.flops = r.int64("flops", 0);
  row.accuracy = row_accuracy_from_json(r);
  return row;
}

}  // namespace

std::string bench_to_json_text(const BenchReport& report) {
  Json meta = meta_to_json(report.meta);
  meta["catalog"] = report.meta.catalog;
  meta["interrupted"] = report.meta.interrupted;
  Json rows = Json::array(), limits = Json::array(), preset_rows = Json::array();
  for (const BenchRow& r : report.rows) rows.push_back(row_to_json(r, report));
  for (const PresetRow& p : report.preset_rows) preset_rows.push_back({{"label", p.label}, {"id", p.id}});
  for (const DeviceLimit& l : report.limits)
    limits.push_back({{"device", l.device},
                      {"dtype", l.dtype},
                      {"copy_gb_per_s", encode_number(l.copy_gb_per_s())},
                      {"arithmetic_gflop_per_s", encode_number(l.arithmetic_gflop_per_s())},
                      {"copy", row_to_json(l.copy, report)},
                      {"arithmetic", row_to_json(l.arithmetic, report)}});
  const Json doc = {{kVersionKey, kBenchSchemaVersion},
                    {"meta", std::move(meta)},
                    {"settings",
                     {{"min_time", encode_number(report.min_time)},
                      {"repetitions", report.repetitions},
                      {"parity_source", report.parity_source},
                      {"preset", report.preset},
                      {"preset_rows", std::move(preset_rows)}}},
                    {"limits", std::move(limits)},
                    {"rows", std::move(rows)}};
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

bool is_bench_json_text(std::string_view text) {
  const Json doc = Json::parse(text, nullptr, false);
  return doc.is_object() && doc.contains(kVersionKey);
}

BenchReport bench_from_json_text(std::string_view text, std::string_view source) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw Error(std::string(source) + ": not JSON: " + e.what());
  }
  try {
    const FieldReader root(doc, "");
    check_schema_major(root, kVersionKey, kBenchSchemaMajor, kBenchSchemaVersion);
    BenchReport report;
    report.meta = meta_from_json(root.object("meta"));
    const FieldReader settings = root.object("settings");
    report.min_time = settings.number("min_time");
    report.repetitions = static_cast<int>(settings.int64("repetitions", 0));
    report.parity_source = settings.string("parity_source");
    report.preset = settings.string("preset");
    const Json& preset_rows = settings.array("preset_rows");
    for (std::size_t i = 0; i < preset_rows.size(); ++i) {
      const FieldReader p(preset_rows[i], "settings.preset_rows[" + std::to_string(i) + "]");
      report.preset_rows.push_back({p.string("label"), p.string("id", Need::required)});
    }
    const Json& limits = root.array("limits");
    for (std::size_t i = 0; i < limits.size(); ++i) {
      const FieldReader l(limits[i], "limits[" + std::to_string(i) + "]");
      DeviceLimit limit{
          l.string("device", Need::required), l.string("dtype", Need::required), row_from_json(l.object("copy")), {}};
      if (l.has("arithmetic")) limit.arithmetic = row_from_json(l.object("arithmetic"));
      report.limits.push_back(std::move(limit));
    }
    const Json& rows = root.array("rows", Need::required);
    for (std::size_t i = 0; i < rows.size(); ++i)
      report.rows.push_back(row_from_json(FieldReader(rows[i], "rows[" + std::to_string(i) + "]")));
    return report;
  } catch (const Error& e) {
    throw Error(std::string(source) + ": " + e.what());
  }
}

void write_bench_json(const std::filesystem::path& path, const BenchReport& report) {
  write_file_atomically(path, bench_to_json_text(report));
}

BenchReport read_bench_json(const std::filesystem::path& path) {
  return bench_from_json_text(read_whole_file(path), path.string());
}

}  // namespace gp
