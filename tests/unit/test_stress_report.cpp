// The stress section of parity.json and parity.md: a StressResult round-trips through the JSON
// report, a clean row is no failure, the Markdown report has the stress table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/run/runner.hpp"
#include "reports/json_report.hpp"
#include "reports/markdown_report.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

StressResult sample_result() {
  StressResult s;
  s.backend = "vulkan:0";
  s.device = "llvmpipe";
  s.mode = "shared";
  s.inject = "vulkan-unlocked-queue";
  s.threads = 16;
  s.iterations = 200;
  s.calls = 3200;
  s.mismatches = 2;
  s.nonfinite = 1;
  s.errors = 3;
  s.crash = "signal 11 (SIGSEGV)";
  s.validation_count = 7;
  s.validation_messages = {"UNASSIGNED-Threading-MultipleThreads: THREADING ERROR"};
  s.notes = {"mismatch: exp(shape=64,dtype=f32)"};
  s.time_s = 1.25;
  return s;
}

TEST(StressReport, JsonRoundTripAndSchemaVersion) {
  RunReport plain;
  plain.meta.seed = 3;
  EXPECT_EQ(nlohmann::json::parse(report_to_json_text(plain))["schema_version"], "1.0");

  RunReport report = plain;
  report.stress = {sample_result(), sample_result()};
  report.stress[1].mode = "churn";
  report.stress[1].crash.clear();
  const std::string text = report_to_json_text(report);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.1");
  EXPECT_EQ(doc["stress"][0]["failed"], true);
  EXPECT_EQ(doc["stress"][0]["validation_count"], 7);

  const RunReport back = report_from_json_text(text);
  ASSERT_EQ(back.stress.size(), 2u);
  const StressResult& s = back.stress[0];
  EXPECT_EQ(s.backend, "vulkan:0");
  EXPECT_EQ(s.device, "llvmpipe");
  EXPECT_EQ(s.inject, "vulkan-unlocked-queue");
  EXPECT_EQ(s.threads, 16);
  EXPECT_EQ(s.iterations, 200);
  EXPECT_EQ(s.calls, 3200);
  EXPECT_EQ(s.mismatches, 2);
  EXPECT_EQ(s.nonfinite, 1);
  EXPECT_EQ(s.errors, 3);
  EXPECT_EQ(s.crash, "signal 11 (SIGSEGV)");
  EXPECT_EQ(s.validation_messages, sample_result().validation_messages);
  EXPECT_EQ(s.notes, sample_result().notes);
  EXPECT_DOUBLE_EQ(s.time_s, 1.25);
  EXPECT_EQ(back.stress[1].mode, "churn");
}

TEST(StressReport, CleanRowIsNotAFailure) {
  StressResult s = sample_result();
  s.mismatches = s.nonfinite = s.errors = s.validation_count = 0;
  s.crash.clear();
  EXPECT_FALSE(s.failed());
  s.validation_count = 1;  // every validation message is a failure
  EXPECT_TRUE(s.failed());
}

TEST(StressReport, MarkdownHasTheStressTable) {
  RunReport report;
  report.stress = {sample_result()};
  const std::string md = report_to_markdown(report);
  EXPECT_THAT(md, HasSubstr("## Thread-safety stress"));
  EXPECT_THAT(md, HasSubstr("1 of 1 device × mode runs failed"));
  EXPECT_THAT(md, HasSubstr("| `vulkan:0` | shared | `vulkan-unlocked-queue` | 16 | 200 | 3200 | 2 | 1 | 3 | 7 |"));
  EXPECT_THAT(md, HasSubstr("UNASSIGNED-Threading-MultipleThreads"));
  EXPECT_THAT(report_to_markdown(RunReport{}), ::testing::Not(HasSubstr("Thread-safety stress")));
}

}  // namespace
}  // namespace gp
