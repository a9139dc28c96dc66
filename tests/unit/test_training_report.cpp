// The training runs in the reports: per-step data through parity.json (and a merge of shards),
// the Training section of parity.md, the loss pictures of parity.html; on a synthetic run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "reports/html_report.hpp"
#include "reports/json_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/merge.hpp"
#include "support/synthetic_report.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char* const kRun = "train(model=mlp,opt=adamw,steps=4,batch=16,dtype=f32)";

CheckResult training_check(const std::string& backend, const std::string& part, Verdict v) {
  CheckResult c = make_check("train", backend, Direction::forward, -1, v);
  c.family = "model";
  c.subject = SubjectKind::training;
  c.case_id = kRun;
  c.part = part;
  return c;
}

// cpu within its band at every step; opencl:0's loss leaves it at step 3 and W1 at step 2.
std::vector<CheckResult> training_run(const std::string& backend, bool leaves) {
  CheckResult loss = training_check(backend, "loss at every step", leaves ? Verdict::fail : Verdict::pass);
  loss.steps.reference = {2.5, 2.0, 1.5, 1.0};
  loss.steps.bound = {1e-6, 2e-6, 3e-6, 4e-6};
  loss.steps.loss = {2.5 + 5e-7, 2.0 - 1.5e-6, 1.5 + (leaves ? 9e-6 : 1e-6), 1.0};
  loss.steps.amplification = {1.5, 2, 0.5};
  if (leaves) loss.steps.first_out = 3;
  CheckResult w1 = training_check(backend, "W1 at every step", leaves ? Verdict::fail : Verdict::pass);
  if (leaves) w1.steps.first_out = 2;
  return {loss, w1, training_check(backend, "convergence", Verdict::pass)};
}

RunReport training_report(const std::vector<std::string>& backends) {
  RunReport r = synthetic_report();
  r.checks.push_back(training_check("reference", "convergence", Verdict::pass));
  for (const auto& b : backends)
    for (auto& c : training_run(b, b == "opencl:0")) r.checks.push_back(c);
  return r;
}

TEST(TrainingReport, StepsRoundTripThroughJsonAndMergeWithSchema16) {
  RunReport a = training_report({"cpu"}), b = training_report({"opencl:0"});
  b.meta.shard = "2/2";
  b.checks.erase(b.checks.begin(), b.checks.begin() + static_cast<std::ptrdiff_t>(a.checks.size() - 3));
  const RunReport merged = report_from_json_text(report_to_json_text(merge_reports({a, b})));
  const std::string text = report_to_json_text(merged);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.7");  // typed subjects
  const RunReport back = report_from_json_text(text);
  const CheckResult& loss = back.checks[back.checks.size() - 3];
  EXPECT_EQ(loss.backend, "opencl:0");
  EXPECT_EQ(loss.steps.loss, training_run("opencl:0", true)[0].steps.loss);
  EXPECT_EQ(loss.steps.bound.size(), 4u);
  EXPECT_EQ(loss.steps.amplification.size(), 3u);
  EXPECT_EQ(loss.steps.first_out, 3);
  const auto& rows = doc["summary"]["training"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["backend"], "cpu");
  EXPECT_EQ(rows[0]["first_step_out_of_band"], 0);
  EXPECT_EQ(rows[1]["first_step_out_of_band"], 2);  // W1 left first
  EXPECT_NEAR(rows[1]["largest_loss_error_per_bound"].get<double>(), 3, 1e-6);
  EXPECT_EQ(rows[1]["at_step"], 3);
  EXPECT_DOUBLE_EQ(rows[1]["amplification_product"].get<double>(), 1.5);
  EXPECT_TRUE(doc["summary"]["models"].empty());  // the training run is not a row of Models
}

TEST(TrainingReport, MarkdownHasATrainingSectionAndNoModelsRowForTheRun) {
  const std::string md = report_to_markdown(training_report({"cpu", "opencl:0"}));
  ASSERT_THAT(md, HasSubstr("## Training"));
  EXPECT_THAT(md, Not(HasSubstr("## Models")));
  const std::string section = md.substr(md.find("## Training"));
  EXPECT_THAT(section, HasSubstr("| `cpu` | f32 | ✅ PASS | 2.5 (Δ 5e-07, ± 1e-06) | 2 (Δ -1.5e-06, ± 2e-06) | 1 (Δ 0, "
                                 "± 4e-06) | 0.75 (2) | 2 / 1.5 | none |"));
  EXPECT_THAT(section, HasSubstr("| `opencl:0` | f32 | ❌ FAIL |"));
  EXPECT_THAT(section, HasSubstr("| 3 (3) | 2 / 1.5 | step 2 |"));
}

TEST(TrainingReport, HtmlDrawsTheLossAndTheBandPerBackend) {
  const std::string html = report_to_html(training_report({"cpu", "opencl:0"}));
  EXPECT_THAT(html, HasSubstr("<h2 id=\"training\">Training</h2>"));
  std::size_t pictures = 0;
  for (auto at = html.find("<svg class=\"train\""); at != std::string::npos;
       at = html.find("<svg class=\"train\"", at + 1))
    ++pictures;
  EXPECT_EQ(pictures, 2u);
  EXPECT_THAT(html, HasSubstr("<polygon class=\"band\""));
  EXPECT_THAT(html, HasSubstr("fill=\"#d7191c\"><title>step 3: loss 1.500009"));  // out of its band: red
  EXPECT_THAT(html, HasSubstr("fill=\"#4a7fb5\"><title>step 2: loss 1.9999985"));
}

}  // namespace
}  // namespace gp
