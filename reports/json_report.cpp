// Writer and reader of parity.json. Field names and their order follow reports/SCHEMA.md; a
// change here is a schema change and must bump kParitySchemaMinor (added field) or
// kParitySchemaMajor (renamed, removed or re-typed field) and update SCHEMA.md.
#include "reports/json_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.hpp"
#include "reports/file_io.hpp"
#include "reports/json_codec.hpp"
#include "reports/json_meta.hpp"
#include "reports/json_profile.hpp"
#include "reports/models.hpp"
#include "reports/summary.hpp"
#include "reports/training.hpp"
#include "results/result_names.hpp"

namespace gp {

using json_codec::encode_number;
using json_codec::FieldReader;
using json_codec::Json;
using json_codec::Need;

namespace {

// ---- writer ----------------------------------------------------------------------------------

Json counts_to_json(const VerdictCounts& counts) {
  Json j = {{"total", counts.total()}};
  for (Verdict v : kAllVerdicts) j[std::string(verdict_name(v))] = counts[v];
  j["covered"] = counts.covered;  // 1.7: the part of SKIP left to stronger checks
  return j;
}

Json summary_to_json(const ReportSummary& s) {
  Json by_backend = Json::object();
  for (const auto& [backend, counts] : s.by_backend) by_backend[backend] = counts_to_json(counts);
  return {{"overall", counts_to_json(s.overall)}, {"by_backend", std::move(by_backend)}};
}

}  // namespace

Json device_to_json(const DeviceSummary& d) {
  return {{"id", d.id},
          {"backend", d.backend},
          {"name", d.name},
          {"driver", d.driver},
          {"api_version", d.api_version},
          {"available", d.available},
          {"unavailable_reason", d.unavailable_reason},
          {"notes", d.notes}};
}

namespace {

// Absent values (no input index, no worst element) are null rather than a magic -1.
Json index_or_null(std::int64_t i) { return i < 0 ? Json(nullptr) : Json(i); }

Json accuracy_to_json(const ReferenceAccuracy& a) {
  Json out = {{"oracle", a.oracle},
              {"cases", a.cases},
              {"points", a.points},
              {"cases_skipped", a.cases_skipped},
              {"worst_ratio", encode_number(a.worst_ratio)},
              {"limit", encode_number(a.limit)},
              {"worst_case", a.worst_case},
              {"worst_direction", a.worst_direction},
              {"worst_index", index_or_null(a.worst_index)},
              {"seconds", encode_number(a.seconds)}};
  if (a.points_skipped > 0) out["points_skipped"] = a.points_skipped;  // 1.17
  return out;
}

}  // namespace

Json meta_to_json(const RunMetadata& m) {
  Json devices = Json::array();
  for (const DeviceSummary& d : m.devices) devices.push_back(device_to_json(d));
  return {{"tool_version", m.version},
          {"build_type", m.build_type},
          {"build_options", m.build_options},
          {"started_at", m.started_at},
          {"seed", m.seed},
          {"command_line", m.command_line},
          {"shard", m.shard},
          {"wall_seconds", encode_number(m.wall_seconds)},
          {"devices", std::move(devices)}};
}

namespace {

// The 1.2 fields, written only when they say something (their absence reads back as "" and
// false), so that a document uses the oldest schema version that holds it.
bool add_1_2_meta(Json& meta, const RunMetadata& m) {
  if (m.catalog.empty() && !m.interrupted) return false;
  meta["catalog"] = m.catalog;
  meta["interrupted"] = m.interrupted;
  return true;
}

// The 1.3 field, written only by runs that checked the reference against the oracle.
bool add_1_3_meta(Json& meta, const RunMetadata& m) {
  if (m.reference_accuracy.oracle.empty()) return false;
  meta["reference_accuracy"] = accuracy_to_json(m.reference_accuracy);
  return true;
}

// The 1.8 field, written by runs that measured their profile.
bool add_1_8_meta(Json& meta, const RunMetadata& m) {
  if (m.profile.empty()) return false;
  meta["profile"] = profile_to_json(m.profile);
  return true;
}

Json numbers_to_json(const std::vector<double>& v) {
  Json out = Json::array();
  for (double x : v) out.push_back(encode_number(x));
  return out;
}

Json steps_to_json(const TrainingSteps& s) {
  return {{"first_out", s.first_out},
          {"loss", numbers_to_json(s.loss)},
          {"reference", numbers_to_json(s.reference)},
          {"bound", numbers_to_json(s.bound)},
          {"amplification", numbers_to_json(s.amplification)}};
}

Json check_to_json(const CheckResult& c) {
  const Metrics& m = c.metrics;
  Json worst = {{"index", index_or_null(m.worst.index)},
                {"inputs", numbers_to_json(m.worst.inputs)},
                {"expected", encode_number(m.worst.expected)},
                {"got", encode_number(m.worst.got)},
                {"bound", encode_number(m.worst.bound)}};
  Json j = {{"case_id", c.case_id},
            {"op", c.op},
            {"family", c.family},
            {"backend", c.backend},
            {"dtype", dtype_name(c.dtype)},
            {"direction", direction_name(c.direction)},
            {"input", index_or_null(c.input)},
            {"verdict", verdict_name(c.verdict)},
            {"reason", c.reason},
            {"tolerance", c.tolerance},
            {"max_abs", encode_number(m.max_abs)},
            {"max_rel", encode_number(m.max_rel)},
            {"max_ulp", encode_number(m.max_ulp)},
            {"nmse", encode_number(m.nmse)},
            {"bound", encode_number(m.bound)},
            {"margin", encode_number(m.margin)},
            {"elements", m.elements},
            {"nonfinite", m.nonfinite},
            {"worst", std::move(worst)},
            {"time_ms", encode_number(c.time_ms)},
            {"seed", c.seed},
            {"repro", c.repro}};
  if (m.tensor_elements > m.elements) j["tensor_elements"] = m.tensor_elements;  // a sample (large tier)
  if (m.insignificant > 0) j["insignificant"] = m.insignificant;                 // 1.14
  if (c.speed.measured())                                                        // 1.11: the large tier
    j["speed"] = {{"seconds", encode_number(c.speed.seconds)},
                  {"timer", c.speed.device_timer ? "device" : "host"},
                  {"bytes", c.speed.bytes},
                  {"flops", c.speed.flops}};
  if (c.memory.stated())  // 1.16: the large tier
    j["memory"] = {{"device_bytes", c.memory.device_bytes}, {"host_bytes", c.memory.host_bytes}};
  if (c.expected) j["expected"] = true;    // 1.12: --expect
  if (!std::isnan(m.detection_threshold))  // 1.13: a complete check (large tier)
    j["detection_threshold"] = encode_number(m.detection_threshold);
  if (!c.part.empty()) j["part"] = c.part;                    // composite models
  if (!c.steps.empty()) j["steps"] = steps_to_json(c.steps);  // 1.6: training runs
  // 1.7: the typed subject and reason, and a model's formulation, where they say something.
  if (c.subject != SubjectKind::primitive) j["subject"] = subject_kind_name(c.subject);
  if (c.reason_kind != ReasonKind::none) j["reason_kind"] = reason_kind_name(c.reason_kind);
  if (!c.formulation.empty()) j["formulation"] = c.formulation;
  // 1.4: the check's sensitivity, where it has one (comparisons with a bound).
  if (!std::isnan(m.sensitivity_ulp)) {
    j["sensitivity_ulp"] = encode_number(m.sensitivity_ulp);
    j["budget_ulp"] = encode_number(m.budget_ulp);
  }
  return j;
}

Json stress_to_json(const StressResult& s) {
  return {{"backend", s.backend},
          {"device", s.device},
          {"mode", s.mode},
          {"inject", s.inject},
          {"threads", s.threads},
          {"iterations", s.iterations},
          {"calls", s.calls},
          {"mismatches", s.mismatches},
          {"nonfinite", s.nonfinite},
          {"errors", s.errors},
          {"crash", s.crash},
          {"validation_count", s.validation_count},
          {"validation_messages", s.validation_messages},
          {"notes", s.notes},
          {"time_s", encode_number(s.time_s)},
          {"failed", s.failed()}};
}

// ---- reader ----------------------------------------------------------------------------------

}  // namespace

void check_schema_major(const FieldReader& doc, std::string_view key, int major_wanted, std::string_view written) {
  const std::string version = doc.string(key, Need::required);
  int major = -1;
  auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  if (ec != std::errc() || end == version.data() || (end != version.data() + version.size() && *end != '.'))
    throw Error(std::string(key) + ": malformed version \"" + version + "\" (expected \"MAJOR.MINOR\")");
  if (major != major_wanted)
    throw Error(std::string(key) + " " + version + " is not supported: this reader understands " +
                std::to_string(major_wanted) + ".x (written by gradparity with schema " + std::string(written) +
                "); regenerate the report or use a matching gradparity");
}

DeviceSummary device_from_json(const FieldReader& r) {
  DeviceSummary d;
  d.id = r.string("id", Need::required);
  d.backend = r.string("backend");
  d.name = r.string("name");
  d.driver = r.string("driver");
  d.api_version = r.string("api_version");
  d.available = r.boolean("available", true);
  d.unavailable_reason = r.string("unavailable_reason");
  d.notes = r.strings("notes");
  return d;
}

namespace {

ReferenceAccuracy reference_accuracy_from_json(const FieldReader& r) {
  ReferenceAccuracy a;
  a.oracle = r.string("oracle");
  a.cases = r.int64("cases", 0);
  a.points = r.int64("points", 0);
  a.cases_skipped = r.int64("cases_skipped", 0);
  a.points_skipped = r.int64("points_skipped", 0);
  a.worst_ratio = r.number("worst_ratio");
  a.limit = r.number("limit");
  a.worst_case = r.string("worst_case");
  a.worst_direction = r.string("worst_direction");
  a.worst_index = r.int64("worst_index", -1);
  a.seconds = r.number("seconds");
  return a;
}

}  // namespace

RunMetadata meta_from_json(const FieldReader& r) {
  RunMetadata m;
  m.version = r.string("tool_version");
  m.build_type = r.string("build_type");
  m.build_options = r.strings("build_options");
  m.started_at = r.string("started_at");
  m.seed = r.uint64("seed", Need::required);
  m.command_line = r.string("command_line");
  m.shard = r.string("shard");
  m.wall_seconds = r.number("wall_seconds");
  m.catalog = r.string("catalog");
  m.interrupted = r.boolean("interrupted", false);
  const Json& devices = r.array("devices");
  for (std::size_t i = 0; i < devices.size(); ++i)
    m.devices.push_back(
        device_from_json(FieldReader(devices[i], r.path_of("devices") + "[" + std::to_string(i) + "]")));
  if (r.has("reference_accuracy")) m.reference_accuracy = reference_accuracy_from_json(r.object("reference_accuracy"));
  if (r.has("profile")) m.profile = profile_from_json(r.object("profile"));
  return m;
}

namespace {

template <typename T, typename Parse>
T parse_enum(const FieldReader& r, std::string_view key, Parse parse, std::string_view expected) {
  const std::string text = r.string(key, Need::required);
  auto value = parse(text);
  if (!value) throw Error(r.path_of(key) + ": unknown value \"" + text + "\" (expected " + std::string(expected) + ")");
  return *value;
}

CheckResult check_from_json(const FieldReader& r) {
  CheckResult c;
  c.case_id = r.string("case_id", Need::required);
  c.op = r.string("op");
  c.family = r.string("family");
  c.backend = r.string("backend", Need::required);
  c.dtype = parse_enum<DType>(r, "dtype", parse_dtype, "f16, bf16, f32, f64 or i32");
  c.direction = parse_enum<Direction>(r, "direction", parse_direction,
                                      "forward, backward, numerical_reference, numerical_backend, surrogate or node");
  c.input = static_cast<int>(r.int64("input", -1));
  c.part = r.string("part");
  c.verdict = parse_enum<Verdict>(r, "verdict", parse_verdict, "PASS, FAIL, SKIP, MISTRUSTED or ERROR");
  c.reason = r.string("reason");
  if (r.has("subject")) {
    c.subject = parse_enum<SubjectKind>(r, "subject", parse_subject_kind, "primitive, model or training");
  } else if (c.family == "model") {  // before 1.7 a training run was the model named "train"
    c.subject = c.op == "train" ? SubjectKind::training : SubjectKind::model;
  }
  if (r.has("reason_kind"))
    c.reason_kind = parse_enum<ReasonKind>(r, "reason_kind", parse_reason_kind, "a reason kind of reports/SCHEMA.md");
  c.formulation = r.string("formulation");
  constexpr std::string_view kOldFormulation = "formulation: ";  // before 1.7 it rode in the reason
  if (c.formulation.empty() && c.reason.rfind(kOldFormulation, 0) == 0) {
    c.formulation = c.reason.substr(kOldFormulation.size());
    c.reason.clear();
  }
  c.tolerance = r.string("tolerance");
  Metrics& m = c.metrics;
  m.max_abs = r.number("max_abs");
  m.max_rel = r.number("max_rel");
  m.max_ulp = r.number("max_ulp");
  m.nmse = r.number("nmse");
  m.bound = r.number("bound");
  m.margin = r.number("margin");
  if (r.has("sensitivity_ulp")) {
    m.sensitivity_ulp = r.number("sensitivity_ulp");
    m.budget_ulp = r.number("budget_ulp");
  }
  m.elements = r.int64("elements", 0);
  m.tensor_elements = r.int64("tensor_elements", m.elements);
  if (r.has("detection_threshold")) m.detection_threshold = r.number("detection_threshold");
  m.nonfinite = r.int64("nonfinite", 0);
  m.insignificant = r.int64("insignificant", 0);
  const FieldReader worst = r.object("worst", Need::optional);
  m.worst.index = worst.int64("index", -1);
  m.worst.inputs = worst.numbers("inputs");
  m.worst.expected = worst.number("expected");
  m.worst.got = worst.number("got");
  m.worst.bound = worst.number("bound");
  c.time_ms = r.number("time_ms");
  const FieldReader speed = r.object("speed", Need::optional);
  c.speed.seconds = speed.number("seconds");
  c.speed.device_timer = speed.string("timer") == "device";
  c.speed.bytes = speed.int64("bytes", 0);
  c.speed.flops = speed.int64("flops", 0);
  const FieldReader memory = r.object("memory", Need::optional);
  c.memory.device_bytes = memory.int64("device_bytes", 0);
  c.memory.host_bytes = memory.int64("host_bytes", 0);
  c.seed = r.uint64("seed");
  c.repro = r.string("repro");
  c.expected = r.boolean("expected", false);
  const FieldReader steps = r.object("steps", Need::optional);
  c.steps.first_out = static_cast<int>(steps.int64("first_out", 0));
  c.steps.loss = steps.numbers("loss");
  c.steps.reference = steps.numbers("reference");
  c.steps.bound = steps.numbers("bound");
  c.steps.amplification = steps.numbers("amplification");
  return c;
}

StressResult stress_from_json(const FieldReader& r) {
  StressResult s;
  s.backend = r.string("backend", Need::required);
  s.device = r.string("device");
  s.mode = r.string("mode", Need::required);
  s.inject = r.string("inject");
  s.threads = static_cast<int>(r.int64("threads", 0));
  s.iterations = r.int64("iterations", 0);
  s.calls = r.int64("calls", 0);
  s.mismatches = r.int64("mismatches", 0);
  s.nonfinite = r.int64("nonfinite", 0);
  s.errors = r.int64("errors", 0);
  s.crash = r.string("crash");
  s.validation_count = r.int64("validation_count", 0);
  s.validation_messages = r.strings("validation_messages");
  s.notes = r.strings("notes");
  s.time_s = r.number("time_s");
  // "failed" is derived from the counts: readers recompute it (StressResult::failed).
  return s;
}

}  // namespace

std::string report_to_json_text(const RunReport& report) {
  Json checks = Json::array();
  for (const CheckResult& c : report.checks) checks.push_back(check_to_json(c));
  // A document says the oldest version whose fields it uses: 1.0 for a parity run without the
  // later meta fields, 1.1 with "stress" (written only by `gradparity stress`), 1.2 with
  // meta.catalog / meta.interrupted, 1.3 with meta.reference_accuracy, 1.4 with sensitivity, 1.5
  // with composite models (checks' `part`, direction "node", summary.models), 1.6 with training
  // runs' steps (checks' `steps`, summary.training), 1.7 with typed subjects and reasons (checks'
  // `subject`, `reason_kind`, `formulation`; summary's `covered`), 1.8 with meta.profile, 1.9 with
  // the devices' own time in it (meta.profile.device_seconds), 1.10 with sampled comparisons
  // (checks' `tensor_elements`, the large tier), 1.11 with the large tier's call speeds, 1.12
  // with expected failures (checks' `expected`), 1.13 with complete checks (directions
  // `forward_complete` and `backward_complete`, checks' `detection_threshold`), 1.14 with checks'
  // `insignificant`, 1.15 with refusals of invalid calls (direction `refusal`), 1.16 with memory (checks'
  // `memory`, the large tier's cases; meta.profile.peak_host_bytes).
  Json meta = meta_to_json(report.meta);
  const bool v1_8 = add_1_8_meta(meta, report.meta);
  const bool v1_2 = add_1_2_meta(meta, report.meta);
  const bool v1_3 = add_1_3_meta(meta, report.meta);
  const bool v1_4 = std::any_of(report.checks.begin(), report.checks.end(),
                                [](const CheckResult& c) { return !std::isnan(c.metrics.sensitivity_ulp); });
  const bool v1_5 = std::any_of(report.checks.begin(), report.checks.end(),
                                [](const CheckResult& c) { return c.subject != SubjectKind::primitive; });
  const bool v1_6 =
      std::any_of(report.checks.begin(), report.checks.end(), [](const CheckResult& c) { return !c.steps.empty(); });
  const bool v1_7 = std::any_of(report.checks.begin(), report.checks.end(), [](const CheckResult& c) {
    return c.subject != SubjectKind::primitive || c.reason_kind != ReasonKind::none || !c.formulation.empty();
  });
  const bool v1_9 = report.meta.profile.device_total() > 0;
  const bool v1_10 = std::any_of(report.checks.begin(), report.checks.end(),
                                 [](const CheckResult& c) { return c.metrics.tensor_elements > c.metrics.elements; });
  const bool v1_11 =
      std::any_of(report.checks.begin(), report.checks.end(), [](const CheckResult& c) { return c.speed.measured(); });
  const bool v1_12 =
      std::any_of(report.checks.begin(), report.checks.end(), [](const CheckResult& c) { return c.expected; });
  const bool v1_13 = std::any_of(report.checks.begin(), report.checks.end(), [](const CheckResult& c) {
    return c.direction == Direction::forward_complete || c.direction == Direction::backward_complete;
  });
  const bool v1_14 = std::any_of(report.checks.begin(), report.checks.end(),
                                 [](const CheckResult& c) { return c.metrics.insignificant > 0; });
  const bool v1_15 = std::any_of(report.checks.begin(), report.checks.end(),
                                 [](const CheckResult& c) { return c.direction == Direction::refusal; });
  const bool v1_16 =
      (!report.meta.profile.empty() && report.meta.profile.peak_host_bytes > 0) ||
      std::any_of(report.checks.begin(), report.checks.end(), [](const CheckResult& c) { return c.memory.stated(); });
  const bool v1_17 = report.meta.reference_accuracy.points_skipped > 0;
  const std::string_view version = v1_17                   ? kParitySchemaVersion
                                   : v1_16                 ? std::string_view("1.16")
                                   : v1_15                 ? std::string_view("1.15")
                                   : v1_14                 ? std::string_view("1.14")
                                   : v1_13                 ? std::string_view("1.13")
                                   : v1_12                 ? std::string_view("1.12")
                                   : v1_11                 ? std::string_view("1.11")
                                   : v1_10                 ? std::string_view("1.10")
                                   : v1_9                  ? std::string_view("1.9")
                                   : v1_8                  ? std::string_view("1.8")
                                   : v1_7                  ? std::string_view("1.7")
                                   : v1_6                  ? std::string_view("1.6")
                                   : v1_5                  ? std::string_view("1.5")
                                   : v1_4                  ? std::string_view("1.4")
                                   : v1_3                  ? std::string_view("1.3")
                                   : v1_2                  ? std::string_view("1.2")
                                   : report.stress.empty() ? std::string_view("1.0")
                                                           : std::string_view("1.1");
  Json doc = {{"schema_version", version},
              {"meta", std::move(meta)},
              {"summary", summary_to_json(summarize(report.checks))},
              {"checks", std::move(checks)}};
  if (v1_4) {
    Json cells = Json::array();
    for (const SensitivityCell& c : sensitivity_table(report.checks))
      cells.push_back({{"op", c.op},
                       {"backend", c.backend},
                       {"dtype", dtype_name(c.dtype)},
                       {"checks", c.checks},
                       {"median_ulp", encode_number(c.median)},
                       {"worst_ulp", encode_number(c.worst)},
                       {"median_per_budget", encode_number(c.median_per_budget)}});
    doc["summary"]["sensitivity"] = std::move(cells);
  }
  if (v1_5) {
    Json models = Json::array();
    for (const ModelRow& r : model_rows(report.checks))
      models.push_back({{"case_id", r.case_id},
                        {"model", r.model},
                        {"backend", r.backend},
                        {"dtype", dtype_name(r.dtype)},
                        {"end_to_end", verdict_name(r.end_to_end)},
                        {"node_by_node", verdict_name(r.node)},
                        {"numerical", verdict_name(r.numerical)},
                        {"worst_check", r.worst_part},
                        {"margin", encode_number(r.margin)},
                        {"bound", encode_number(r.bound)},
                        {"max_abs", encode_number(r.error)},
                        {"worst_node", r.worst_node},
                        {"worst_node_margin", encode_number(r.node_margin)},
                        {"formulation", r.formulation}});
    doc["summary"]["models"] = std::move(models);
  }
  if (v1_6) {
    Json training = Json::array();
    for (const TrainingRow& r : training_rows(report.checks))
      training.push_back({{"case_id", r.case_id},
                          {"backend", r.backend},
                          {"dtype", dtype_name(r.dtype)},
                          {"verdict", verdict_name(r.verdict)},
                          {"largest_loss_error_per_bound", encode_number(r.worst_ratio)},
                          {"at_step", r.worst_step},
                          {"amplification_max", encode_number(r.amplification_max)},
                          {"amplification_product", encode_number(r.amplification_product)},
                          {"first_step_out_of_band", r.first_out}});
    doc["summary"]["training"] = std::move(training);
  }
  if (!report.stress.empty()) {
    Json stress = Json::array();
    for (const StressResult& s : report.stress) stress.push_back(stress_to_json(s));
    doc["stress"] = std::move(stress);
  }
  // Invalid UTF-8 in a reason (a driver's message) is replaced rather than aborting the report.
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

RunReport report_from_json_text(std::string_view text, std::string_view source) {
  const std::string where(source);
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    throw Error(where + ": not valid JSON: " + e.what());
  }
  try {
    const FieldReader root(doc, "");
    check_schema_major(root, "schema_version", kParitySchemaMajor, kParitySchemaVersion);
    RunReport report;
    report.meta = meta_from_json(root.object("meta"));
    // "summary" is derived from the checks: readers recompute it instead of trusting a copy.
    const Json& checks = root.array("checks", Need::required);
    report.checks.reserve(checks.size());
    for (std::size_t i = 0; i < checks.size(); ++i)
      report.checks.push_back(check_from_json(FieldReader(checks[i], "checks[" + std::to_string(i) + "]")));
    const Json& stress = root.array("stress");
    for (std::size_t i = 0; i < stress.size(); ++i)
      report.stress.push_back(stress_from_json(FieldReader(stress[i], "stress[" + std::to_string(i) + "]")));
    return report;
  } catch (const Json::exception& e) {  // a value out of range for its C++ type
    throw Error(where + ": " + e.what());
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
}

void write_parity_json(const std::filesystem::path& path, const RunReport& report) {
  write_file_atomically(path, report_to_json_text(report));
}

RunReport read_parity_json(const std::filesystem::path& path) {
  return report_from_json_text(read_whole_file(path), path.string());
}

}  // namespace gp
