// reports/: parity.json round trip and schema checks, shard merge, parity.md content, .npy bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "reports/json_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/merge.hpp"
#include "reports/npy.hpp"
#include "reports/summary.hpp"
#include "results/result_names.hpp"
#include "support/same_check.hpp"
#include "support/synthetic_report.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A fresh directory under the system temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("gp_test_reports_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// ---- names -----------------------------------------------------------------------------------

TEST(ResultNames, RoundTripAndLabels) {
  for (Verdict v : kAllVerdicts) EXPECT_EQ(parse_verdict(verdict_name(v)), v);
  for (Direction d : kAllDirections) EXPECT_EQ(parse_direction(direction_name(d)), d);
  EXPECT_EQ(verdict_name(Verdict::mistrusted), "MISTRUSTED");
  EXPECT_EQ(direction_label(Direction::forward, -1), "forward");
  EXPECT_EQ(direction_label(Direction::backward, 1), "backward input 1");
  EXPECT_EQ(direction_label(Direction::numerical_backend, 0), "numerical_backend input 0");
  EXPECT_FALSE(parse_verdict("pass").has_value());
}

// ---- parity.json -----------------------------------------------------------------------------

TEST(ParityJson, RoundTripKeepsEveryFieldIncludingNonFinite) {
  const RunReport original = synthetic_report();
  TempDir dir;
  const auto path = dir.path() / "out" / "parity.json";
  write_parity_json(path, original);
  const RunReport back = read_parity_json(path);

  EXPECT_EQ(back.meta.version, original.meta.version);
  EXPECT_EQ(back.meta.build_type, original.meta.build_type);
  EXPECT_EQ(back.meta.build_options, original.meta.build_options);
  EXPECT_EQ(back.meta.started_at, original.meta.started_at);
  EXPECT_EQ(back.meta.seed, kBigSeed);
  EXPECT_EQ(back.meta.command_line, original.meta.command_line);
  EXPECT_EQ(back.meta.shard, "1/2");
  EXPECT_EQ(back.meta.wall_seconds, 12.5);
  const ReferenceAccuracy &a = back.meta.reference_accuracy, &b = original.meta.reference_accuracy;
  EXPECT_EQ(a.oracle, b.oracle);
  EXPECT_EQ(a.cases, b.cases);
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.cases_skipped, 1);
  EXPECT_EQ(a.worst_ratio, b.worst_ratio);
  EXPECT_EQ(a.limit, b.limit);
  EXPECT_EQ(a.worst_case, b.worst_case);
  EXPECT_EQ(a.worst_direction, b.worst_direction);
  EXPECT_EQ(a.worst_index, b.worst_index);
  EXPECT_EQ(a.seconds, b.seconds);
  ASSERT_EQ(back.meta.devices.size(), 2u);
  EXPECT_EQ(back.meta.devices[0].notes, std::vector<std::string>{"avx2"});
  EXPECT_FALSE(back.meta.devices[1].available);
  EXPECT_EQ(back.meta.devices[1].unavailable_reason, "no Vulkan ICD found");

  ASSERT_EQ(back.checks.size(), original.checks.size());
  for (std::size_t i = 0; i < back.checks.size(); ++i) expect_same_check(original.checks[i], back.checks[i]);
  EXPECT_TRUE(std::isinf(back.checks[4].metrics.margin) && back.checks[4].metrics.margin > 0);
  EXPECT_TRUE(std::isnan(back.checks[3].metrics.margin));
  EXPECT_EQ(back.checks[2].verdict, Verdict::skip);
  EXPECT_EQ(back.checks[2].reason, "f64 not supported by device");
  for (const auto& e : std::filesystem::directory_iterator(path.parent_path()))  // no temporary left
    EXPECT_EQ(e.path().filename(), path.filename());
}

TEST(ParityJson, DocumentLayoutNonFiniteStringsAndSummary) {
  const std::string text = report_to_json_text(synthetic_report());
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.3");  // meta.reference_accuracy is set
  EXPECT_EQ(doc["checks"][4]["margin"], "inf");
  EXPECT_EQ(doc["checks"][4]["max_ulp"], "-inf");
  EXPECT_EQ(doc["checks"][3]["margin"], "nan");
  EXPECT_EQ(doc["checks"][1]["worst"]["inputs"][1], "-inf");
  EXPECT_EQ(doc["checks"][1]["worst"]["index"], 17);
  EXPECT_TRUE(doc["checks"][0]["input"].is_null());  // forward: no input index
  EXPECT_EQ(doc["checks"][1]["input"], 0);
  EXPECT_EQ(doc["meta"]["seed"].get<std::uint64_t>(), kBigSeed);
  const auto& summary = doc["summary"];
  EXPECT_EQ(summary["overall"]["total"], 5);
  EXPECT_EQ(summary["overall"]["PASS"], 1);
  EXPECT_EQ(summary["overall"]["FAIL"], 1);
  EXPECT_EQ(summary["overall"]["SKIP"], 1);
  EXPECT_EQ(summary["overall"]["MISTRUSTED"], 1);
  EXPECT_EQ(summary["overall"]["ERROR"], 1);
  EXPECT_EQ(summary["by_backend"]["cpu"]["total"], 3);
  EXPECT_EQ(summary["by_backend"]["cpu"]["ERROR"], 1);
  EXPECT_EQ(summary["by_backend"]["opencl:0"]["SKIP"], 1);
  EXPECT_EQ(summary["by_backend"]["opencl:0"]["PASS"], 0);
}

// 1.5 adds composite models: a check's `part`, the "node" direction and summary.models, which
// parity.md shows as its Models section.
TEST(ParityJson, CompositeModelsRoundTripAndNeedSchema17) {
  RunReport r = synthetic_report();
  CheckResult loss = make_check("mlp", "cpu", Direction::forward, -1, Verdict::pass);
  loss.family = "model";
  loss.subject = SubjectKind::model;
  loss.case_id = "mlp(layers=1,batch=7,dtype=f32)";
  loss.part = "output t0";
  loss.formulation = "linear layers";
  CheckResult node = loss;
  node.direction = Direction::node;
  node.part = "node 0 linear (layer 1) backward input 0";
  node.verdict = Verdict::fail;
  node.reason = "error beyond the bound";
  r.checks.push_back(loss);
  r.checks.push_back(node);
  const std::string text = report_to_json_text(r);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.7");  // typed subjects
  const auto& m = doc["summary"]["models"];
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]["end_to_end"], "PASS");
  EXPECT_EQ(m[0]["node_by_node"], "FAIL");
  EXPECT_EQ(m[0]["worst_node"], node.part);
  EXPECT_EQ(m[0]["formulation"], "linear layers");
  const RunReport back = report_from_json_text(text);
  EXPECT_EQ(back.checks.back().part, node.part);
  EXPECT_EQ(back.checks.back().subject, SubjectKind::model);
  EXPECT_EQ(back.checks.front().formulation, "");
  EXPECT_EQ(back.checks[back.checks.size() - 2].formulation, "linear layers");
  EXPECT_EQ(back.checks.back().direction, Direction::node);
  const std::string md = report_to_markdown(r);
  EXPECT_THAT(md, ::testing::HasSubstr("## Models"));
  EXPECT_THAT(md, ::testing::HasSubstr("node 0 linear (layer 1) backward input 0"));
  EXPECT_THAT(md, ::testing::HasSubstr("`mlp`: linear layers"));
}

// 1.7 types what was free text: the reason's kind (a SKIP the design leaves to a stronger check
// is counted apart), the subject's kind and a model's formulation. A 1.6 document, which had the
// formulation in the reason and a training run as the model "train", reads back typed.
TEST(ParityJson, TypedReasonsRoundTripAndOlderDocumentsReadTyped) {
  RunReport r = synthetic_report();
  CheckResult covered = r.checks[0];
  covered.verdict = Verdict::skip;
  covered.reason_kind = ReasonKind::covered;
  covered.reason = "adds no detection";
  r.checks.push_back(covered);
  const std::string text = report_to_json_text(r);
  EXPECT_EQ(nlohmann::json::parse(text)["schema_version"], "1.7");
  EXPECT_EQ(nlohmann::json::parse(text)["summary"]["overall"]["covered"], 1);
  const RunReport back = report_from_json_text(text);
  EXPECT_EQ(back.checks.back().reason_kind, ReasonKind::covered);
  const std::string line = summary_line(summarize(back.checks).overall);
  EXPECT_THAT(line, HasSubstr(", 1 SKIP,"));  // the synthetic report's own skip, not the covered one
  EXPECT_THAT(line, HasSubstr(", 1 covered by stronger checks"));
  // parity.md's per-backend table counts alike: the covered check is in its own column.
  EXPECT_THAT(report_to_markdown(back), HasSubstr("| `cpu` | 1 | 0 | 0 | 1 | 1 | 1 | 4 |"));

  nlohmann::json old = nlohmann::json::parse(report_to_json_text(synthetic_report()));
  old["schema_version"] = "1.6";
  nlohmann::json model = old["checks"][0];
  model["family"] = "model";
  model["op"] = "mlp";
  model["reason"] = "formulation: linear layers";
  nlohmann::json training = model;
  training["op"] = "train";
  training["reason"] = "";
  old["checks"].push_back(model);
  old["checks"].push_back(training);
  const RunReport typed = report_from_json_text(old.dump());
  const CheckResult& m = typed.checks[typed.checks.size() - 2];
  EXPECT_EQ(m.subject, SubjectKind::model);
  EXPECT_EQ(m.formulation, "linear layers");
  EXPECT_EQ(m.reason, "");
  EXPECT_EQ(typed.checks.back().subject, SubjectKind::training);
  EXPECT_EQ(typed.checks.front().subject, SubjectKind::primitive);
}

// 1.4 adds each comparison's sensitivity; a document says 1.4 only when a check has one.
TEST(ParityJson, SensitivityRoundTripsAndNeedsSchema14) {
  RunReport r = synthetic_report();
  r.checks[0].metrics.sensitivity_ulp = 3.5;
  r.checks[0].metrics.budget_ulp = 2;
  const std::string text = report_to_json_text(r);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.4");
  EXPECT_EQ(doc["checks"][0]["sensitivity_ulp"], 3.5);
  EXPECT_FALSE(doc["checks"][1].contains("sensitivity_ulp"));  // NaN: not written
  const RunReport back = report_from_json_text(text);
  EXPECT_EQ(back.checks[0].metrics.sensitivity_ulp, 3.5);
  EXPECT_EQ(back.checks[0].metrics.budget_ulp, 2);
  EXPECT_TRUE(std::isnan(back.checks[1].metrics.sensitivity_ulp));
}

// Elements without a significant digit and a declared formulation (schema 1.14): written where
// there are any, read back, and shown in parity-details.md's per-op table beside the check.
TEST(ParityJson, InsignificantElementsRoundTripNeedSchema114AndShowBesideADeclaredBackward) {
  RunReport r = synthetic_report();
  r.checks[1].metrics.insignificant = 7;
  r.checks[1].formulation = "computed from the forward's value (declared by the device)";
  const std::string text = report_to_json_text(r);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.14");
  EXPECT_EQ(doc["checks"][1]["insignificant"], 7);
  EXPECT_FALSE(doc["checks"][0].contains("insignificant"));  // none: not written
  const RunReport back = report_from_json_text(text);
  expect_same_check(r.checks[1], back.checks[1]);
  EXPECT_THAT(report_to_details_markdown(back),
              HasSubstr("(from the forward's value; 7 of " + std::to_string(r.checks[1].metrics.elements) +
                        " without a significant digit)"));
}

// The large tier's call speeds: written where measured (schema 1.11), read back, and listed once
// per call in parity.md with GB/s and GFLOP/s (a call's gradient checks share it).
TEST(ParityJson, SpeedRoundTripsNeedsSchema111AndIsListedOncePerCall) {
  RunReport r = synthetic_report();
  r.checks[0].speed = {0.002, true, 4'000'000'000, 0};
  r.checks[1].speed = {0.5, false, 1'000'000'000, 3'000'000'000};
  const std::string text = report_to_json_text(r);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.11");
  EXPECT_EQ(doc["checks"][0]["speed"]["timer"], "device");
  EXPECT_FALSE(doc["checks"][2].contains("speed"));  // not measured: not written
  const RunReport back = report_from_json_text(text);
  for (std::size_t i = 0; i < 3; ++i) expect_same_check(r.checks[i], back.checks[i]);

  const std::string md = report_to_markdown(r);
  EXPECT_THAT(md, HasSubstr("## Speed (large tier)"));
  EXPECT_THAT(md, HasSubstr("| 2 | device | 2e+03 | — |"));  // 4 GB in 2 ms; no operations counted
  EXPECT_THAT(md, HasSubstr("| 500 | host | 2 | 6 |"));
  r.checks[2] = r.checks[1];  // a second gradient of the same call: the same row, not a second one
  r.checks[2].input = 1;
  const std::string again = report_to_markdown(r);
  EXPECT_EQ(again.find("| 500 | host"), again.rfind("| 500 | host"));
  EXPECT_THAT(report_to_markdown(synthetic_report()), Not(HasSubstr("## Speed")));
}

// A large case's memory: written where stated (schema 1.16), read back, and in the speed table.
TEST(ParityJson, CaseMemoryRoundTripsNeedsSchema116AndIsInTheSpeedTable) {
  RunReport r = synthetic_report();
  r.checks[0].speed = {0.002, true, 4'000'000'000, 0};
  r.checks[0].memory = {std::int64_t{3} << 30, std::int64_t{13} << 29};
  const std::string text = report_to_json_text(r);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.16");
  EXPECT_EQ(doc["checks"][0]["memory"]["device_bytes"], std::int64_t{3} << 30);
  EXPECT_FALSE(doc["checks"][1].contains("memory"));  // not stated: not written
  const RunReport back = report_from_json_text(text);
  for (std::size_t i = 0; i < 3; ++i) expect_same_check(r.checks[i], back.checks[i]);
  EXPECT_THAT(report_to_markdown(r), HasSubstr("| 2e+03 | — | 3 GiB | 6.5 GiB |"));
}

// The large tier's oracle elements left out: written when there are any (schema 1.17), read
// back, added by a merge and named in parity.md.
TEST(ParityJson, OracleElementsSkippedRoundTripNeedSchema117AndAreNamed) {
  RunReport r = synthetic_report();
  EXPECT_FALSE(nlohmann::json::parse(report_to_json_text(r))["meta"]["reference_accuracy"].contains("points_skipped"));
  r.meta.reference_accuracy.points_skipped = 5;
  const std::string text = report_to_json_text(r);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.17");
  EXPECT_EQ(doc["meta"]["reference_accuracy"]["points_skipped"], 5);
  EXPECT_EQ(report_from_json_text(text).meta.reference_accuracy.points_skipped, 5);
  RunReport other_shard = r;
  other_shard.checks.clear();
  EXPECT_EQ(merge_reports({r, other_shard}).meta.reference_accuracy.points_skipped, 10);
  EXPECT_THAT(report_to_markdown(r),
              HasSubstr("; 5 elements of large-tier cases on slices longer than the check takes, not compared"));
}

TEST(ParityJson, RejectsOtherSchemaMajorVersion) {
  const std::string text = report_to_json_text(synthetic_report());
  const std::string v2 = replace_once(text, "\"schema_version\": \"1.3\"", "\"schema_version\": \"2.0\"");
  try {
    report_from_json_text(v2, "old.json");
    FAIL() << "a 2.0 document was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("old.json"));
    EXPECT_THAT(e.what(), HasSubstr("schema_version 2.0 is not supported"));
    EXPECT_THAT(e.what(), HasSubstr("1.x"));
  }
  EXPECT_THROW(report_from_json_text(replace_once(text, "\"1.3\"", "\"one\"")), Error);
  EXPECT_THROW(report_from_json_text(replace_once(text, "\"schema_version\": \"1.3\",", "")), Error);
}

TEST(ParityJson, AcceptsNewerMinorVersionWithUnknownFields) {
  std::string text = report_to_json_text(synthetic_report());
  text = replace_once(text, "\"schema_version\": \"1.3\"", "\"schema_version\": \"1.7\", \"added_in_1_7\": [1, 2]");
  text = replace_once(text, "\"case_id\":", "\"new_field\": {\"x\": 1}, \"case_id\":");
  const RunReport back = report_from_json_text(text);
  EXPECT_EQ(back.checks.size(), 5u);
}

TEST(ParityJson, ErrorsNameTheField) {
  const std::string text = report_to_json_text(synthetic_report());
  auto message = [](const std::string& doc) -> std::string {
    try {
      report_from_json_text(doc);
    } catch (const Error& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_THAT(message(replace_once(text, "\"verdict\": \"SKIP\"", "\"verdict\": \"MAYBE\"")),
              HasSubstr("checks[2].verdict: unknown value \"MAYBE\""));
  EXPECT_THAT(message(replace_once(text, "\"margin\": \"inf\"", "\"margin\": \"infinity\"")),
              HasSubstr("checks[4].margin"));
  EXPECT_THAT(message(replace_once(text, "\"dtype\": \"f32\"", "\"dtype\": 32")), HasSubstr("checks[0].dtype"));
  EXPECT_THAT(message(text.substr(0, text.size() / 2)), HasSubstr("not valid JSON"));
}

// ---- merge -----------------------------------------------------------------------------------

TEST(MergeReports, CombinesShardsOfOneSeed) {
  RunReport a = synthetic_report();
  RunReport b = synthetic_report();
  b.meta.shard = "2/2";
  b.meta.started_at = "2024-05-01T11:59:00Z";
  b.meta.wall_seconds = 20;
  for (CheckResult& c : b.checks) c.case_id = "sqrt(shape=5,dtype=f32)", c.op = "sqrt";
  const RunReport merged = merge_reports({a, b});
  ASSERT_EQ(merged.checks.size(), 10u);
  EXPECT_EQ(merged.checks[0].case_id, a.checks[0].case_id);
  EXPECT_EQ(merged.checks[5].op, "sqrt");
  EXPECT_EQ(merged.meta.seed, kBigSeed);
  EXPECT_EQ(merged.meta.shard, "1/2,2/2");
  EXPECT_EQ(merged.meta.started_at, "2024-05-01T11:59:00Z");
  EXPECT_EQ(merged.meta.wall_seconds, 20);
  EXPECT_EQ(merged.meta.devices.size(), 2u);  // identical devices kept once
  EXPECT_EQ(merged.meta.command_line, a.meta.command_line);
  // The merged report survives its own round trip.
  EXPECT_EQ(report_from_json_text(report_to_json_text(merged)).checks.size(), 10u);
}

TEST(MergeReports, RefusesMismatchedSeeds) {
  RunReport a = synthetic_report();
  RunReport b = synthetic_report();
  b.meta.seed = 7;
  b.meta.shard = "2/2";
  try {
    merge_reports({a, b});
    FAIL() << "shards with different seeds were merged";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("seed 7"));
    EXPECT_THAT(e.what(), HasSubstr("seed " + std::to_string(kBigSeed)));
    EXPECT_THAT(e.what(), HasSubstr("shard 2/2"));
  }
}

TEST(MergeReports, RefusesOverlappingShardsAndNothing) {
  RunReport a = synthetic_report();
  RunReport b = synthetic_report();
  b.meta.shard = "2/2";
  b.checks.resize(1);  // the same forward exp check on cpu as in shard 1/2
  EXPECT_THAT(
      [&] {
        merge_reports({a, b});
      },
      ::testing::ThrowsMessage<Error>(HasSubstr("appears in report 1 (shard 1/2) and in report 2 (shard 2/2)")));
  EXPECT_THROW(merge_reports({}), Error);
}

// ---- parity.md -------------------------------------------------------------------------------

TEST(ParityMarkdown, SummaryHasCompactMatrixProblemsReproAndLoosenedReasons) {
  RunReport r = synthetic_report();
  r.checks.push_back(make_check("exp", "cpu", Direction::backward, 0, Verdict::pass));
  const std::string md = report_to_markdown(r);

  EXPECT_THAT(md, HasSubstr("# gradparity parity report"));
  EXPECT_THAT(md, HasSubstr("| Seed | " + std::to_string(kBigSeed) + " |"));
  EXPECT_THAT(md, HasSubstr("| Build options | GP_WITH_OPENCL=ON, GP_WITH_VULKAN=OFF |"));
  EXPECT_THAT(md, HasSubstr("| Command | `gradparity run --seed 42 \\| tee log` |"));  // pipe escaped
  EXPECT_THAT(md, HasSubstr("⏭️ unavailable: no Vulkan ICD found"));
  EXPECT_THAT(
      md,
      HasSubstr("| Reference accuracy | verified against MPFR 168-bit on 2 cases (96 sampled points; 1 cases over the "
                "sample's size (the small tier's are `ctest -L oracle`'s)): worst "
                "error 0.00025 of the tightest backend bound (limit 0.01), `exp(shape=7,dtype=f64)` "
                "backward input 0 element 3 |"));
  EXPECT_THAT(md, HasSubstr("**6 checks: 2 PASS, 1 FAIL, 1 SKIP, 1 MISTRUSTED, 1 ERROR**"));
  // Compact matrix: columns cpu then opencl:0; a symbol, the worst margin, the problem count
  // and skip letters, the skip reason once in the legend.
  EXPECT_THAT(md, HasSubstr("| Op | `cpu` | `opencl:0` |"));
  EXPECT_THAT(md, HasSubstr("| exp | ✅ 0.15 | ❌ 3.5 (1) |"));
  EXPECT_THAT(md, HasSubstr("| log | 💥 (2) | ⏭️ ⁽a⁾ |"));
  EXPECT_THAT(md, HasSubstr("| a | f64 not supported by device | 1 |"));
  // Every problem as a table row with its repro line.
  EXPECT_THAT(md, HasSubstr("## Failures, errors and mistrusted checks (3)"));
  EXPECT_THAT(md,
              HasSubstr("| ❌ FAIL | `exp(shape=7x3,dtype=f32)` backward input 0 | `opencl:0` | 3.5 | error 3.5x the "
                        "bound at element 17 | `gradparity run --filter 'exp(shape=7x3,dtype=f32)' --backend "
                        "opencl:0 --seed 42` |"));
  EXPECT_THAT(md, HasSubstr("finite differences cancel to zero"));
  EXPECT_THAT(md, HasSubstr("CL_OUT_OF_RESOURCES"));
  // Thinnest margins: the two passing checks, with the distribution line.
  EXPECT_THAT(md, HasSubstr("Margins of the 2 passing checks: 0 ≤ 0.01, 0 in (0.01, 0.1], 2 in (0.1, 0.5]"));
  // Loosened tolerance reason.
  EXPECT_THAT(md, HasSubstr("## Passing checks with a note: loosened tolerances, declared surrogates (1)"));
  EXPECT_THAT(md, HasSubstr("| loosened to 8 ulp: glibc expf is 1 ulp off near overflow | 4 ulp * scale | 1 | `cpu` | "
                            "`exp(shape=7x3,dtype=f32)` |"));
  EXPECT_THAT(md, HasSubstr("[parity-details.md](parity-details.md)"));
  // The long per-op tables live in the details file only.
  EXPECT_THAT(md, Not(HasSubstr("## Results per op")));
}

TEST(ParityMarkdown, SkipsOfTwoKindsNeverShareALegendEntry) {
  // The same words under two kinds: the legend and the skip table group by the kind first (the
  // synthetic report's own skip is untyped, as an older document's, and keeps its bare words).
  RunReport r = synthetic_report();
  CheckResult other = make_check("exp", "opencl:0", Direction::forward, -1, Verdict::skip);
  other.reason_kind = ReasonKind::unavailable;
  other.reason = "f64 not supported by device";
  other.metrics = {};
  r.checks.push_back(other);
  const std::string md = report_to_markdown(r);
  EXPECT_THAT(md, HasSubstr(" | unavailable: f64 not supported by device | 1 |"));
  EXPECT_THAT(md, HasSubstr(" | f64 not supported by device | 1 |"));
  EXPECT_THAT(report_to_details_markdown(r),
              HasSubstr("| unavailable: f64 not supported by device | 1 | `opencl:0` | `exp(shape=7x3,dtype=f32)` |"));
}

TEST(ParityMarkdown, DetailsHaveWorstElementsSkipGroupsAndPerOpRows) {
  RunReport r = synthetic_report();
  r.checks.push_back(make_check("exp", "cpu", Direction::backward, 0, Verdict::pass));
  const std::string md = report_to_details_markdown(r);
  EXPECT_THAT(md, HasSubstr("| exp | ✅ 2 | ❌ 1 failed |"));
  EXPECT_THAT(md,
              HasSubstr("| log | 💥 1 error, ⚠️ 1 mistrusted | ⏭️ 1 skip (f64 not supported by device) |"));
  // Per-op table row, numbers in %.3g.
  EXPECT_THAT(md, HasSubstr("| `exp(shape=7x3,dtype=f32)` | `opencl:0` | f32 | backward input 0 | 1.5e-07 | 2.25e-07 | "
                            "1 | 3.5 | ❌ FAIL |"));
  EXPECT_THAT(md, HasSubstr("| inf | 💥 ERROR |"));
  EXPECT_THAT(md, HasSubstr("- Reason: error 3.5x the bound at element 17"));
  EXPECT_THAT(md, HasSubstr("- Worst element: index 17, inputs (0.5, -inf), expected 1.6487212707001282, got 1.6487, "
                            "bound 1e-06"));
  EXPECT_THAT(md,
              HasSubstr("```sh\ngradparity run --filter 'exp(shape=7x3,dtype=f32)' --backend opencl:0 --seed 42\n```"));
  EXPECT_THAT(md, HasSubstr("| f64 not supported by device | 1 | `opencl:0` | `log(shape=7x3,dtype=f32)` |"));
  // The passing check without a reason is not listed as a problem.
  EXPECT_THAT(md, Not(HasSubstr("### ✅")));
}

TEST(ParityMarkdown, AForwardOnlyOpSaysSoWhereOthersHaveBackwardChecks) {
  RunReport r = synthetic_report();
  r.checks.push_back(make_check("adamw_step", "cpu", Direction::forward, -1, Verdict::pass));
  const std::string summary = report_to_markdown(r), details = report_to_details_markdown(r);
  EXPECT_THAT(summary, HasSubstr("| adamw_step (forward only) | ✅ 0.15 |"));
  EXPECT_THAT(summary, HasSubstr("| exp | "));
  EXPECT_THAT(details, HasSubstr("| adamw_step (forward only) | ✅ 1 |"));
  EXPECT_THAT(details, HasSubstr("| `adamw_step(shape=7x3,dtype=f32)` | `cpu` | f32 | backward | — | — | — | — | "
                                 "forward only |"));
  // Not a SKIP, and no such row for an op whose backward is checked.
  EXPECT_THAT(
      details,
      Not(HasSubstr("`adamw_step(shape=7x3,dtype=f32)` | `cpu` | f32 | backward | — | — | — | — | ⏭️")));
  EXPECT_THAT(details,
              Not(HasSubstr("| `exp(shape=7x3,dtype=f32)` | `cpu` | f32 | backward | — | — | — | — | forward only")));
}

TEST(ParityMarkdown, EmptyReportStillRenders) {
  const std::string md = report_to_markdown(RunReport{});
  EXPECT_THAT(md, HasSubstr("**0 checks: 0 PASS, 0 FAIL, 0 SKIP, 0 MISTRUSTED, 0 ERROR**"));
  EXPECT_THAT(md, HasSubstr("## Failures, errors and mistrusted checks (0)\n\nNone."));
}

// ---- .npy ------------------------------------------------------------------------------------

TEST(Npy, HeaderBytesOf2x3F32AreExact) {
  HostTensor t(DType::f32, Shape{2, 3});
  for (int i = 0; i < 6; ++i) t.set(i, 0.5 * i - 1.25);
  const std::string bytes = npy_bytes(t);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  // magic(6) + version(2) + length(2) + header(118) = 128, a multiple of 64.
  std::string expected("\x93NUMPY\x01\x00\x76\x00", 10);
  expected += dict + std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  ASSERT_EQ(bytes.size(), 128u + 6 * 4);
  EXPECT_EQ(bytes.substr(0, 128), expected);
  float first;
  std::memcpy(&first, bytes.data() + 128, 4);
  EXPECT_EQ(first, -1.25f);

  TempDir dir;
  write_npy(dir.path() / "t.npy", t);
  const NpyArray a = read_npy(dir.path() / "t.npy");
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_FALSE(a.fortran_order);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  const HostTensor back = a.to_tensor();
  EXPECT_EQ(back.dtype(), DType::f32);
  EXPECT_EQ(back.shape(), t.shape());
  EXPECT_EQ(back.to_doubles(), t.to_doubles());
}

TEST(Npy, OtherDtypesAndShapes) {
  struct Case {
    DType dtype;
    Shape shape;
    std::string descr, shape_text;
  };
  for (const Case& c : {Case{DType::f64, Shape{6}, "<f8", "(6,)"}, Case{DType::f16, Shape{1, 2, 3}, "<f2", "(1, 2, 3)"},
                        Case{DType::i32, Shape{}, "<i4", "()"}, Case{DType::bf16, Shape{3, 1}, "<f4", "(3, 1)"}}) {
    SCOPED_TRACE(c.descr + " " + c.shape_text);
    HostTensor t(c.dtype, c.shape);
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, i == 0 ? -3.0 : 1.0 / (i + 2));  // rounded by set()
    const std::string bytes = npy_bytes(t);
    const std::size_t header_end =
        10 + (static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8);
    EXPECT_EQ(header_end % 64, 0u);
    EXPECT_EQ(bytes[header_end - 1], '\n');
    EXPECT_THAT(bytes.substr(0, header_end), HasSubstr("'descr': '" + c.descr + "'"));
    EXPECT_THAT(bytes.substr(0, header_end), HasSubstr("'shape': " + c.shape_text + ", }"));
    const HostTensor back = parse_npy(bytes).to_tensor();
    EXPECT_EQ(back.numel(), t.numel());
    EXPECT_EQ(back.to_doubles(), t.to_doubles());  // bf16 widened to f32 exactly
  }
}

TEST(Npy, RejectsBrokenFiles) {
  HostTensor t(DType::f32, Shape{2, 3});
  const std::string bytes = npy_bytes(t);
  EXPECT_THROW(parse_npy(bytes.substr(0, bytes.size() - 1)), Error);
  EXPECT_THROW(parse_npy("not numpy at all"), Error);
  EXPECT_THROW(parse_npy(replace_once(bytes, "<f4", "<c8")), Error);
}

}  // namespace
}  // namespace gp
