// reports/: the summary's size bound, run-to-run drift, merge refusals and warnings, JUnit XML
// and parity.html, on synthetic reports.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "core/error.hpp"
#include "reports/drift.hpp"
#include "reports/html_report.hpp"
#include "reports/json_report.hpp"
#include "reports/junit_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/merge.hpp"
#include "support/synthetic_report.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A run far larger than the default catalog (12,830 checks): 120,000 checks on 4 backends,
// 3,000 failures with long reasons, 39 distinct skip reasons (i % 40 == 0 is a failure).
RunReport huge_run() {
  RunReport r = synthetic_report();
  r.checks.clear();
  const char* backends[] = {"cpu", "opencl:0", "vulkan:0", "vulkan:1"};
  for (int i = 0; i < 120000; ++i) {
    CheckResult c =
        make_check("op" + std::to_string(i % 100), backends[i % 4], Direction::backward, i % 3, Verdict::pass);
    c.case_id = c.op + "(shape=" + std::to_string(i) + ",dtype=f32)";
    c.metrics.margin = (i % 997) / 1000.0;
    if (i % 40 == 0) {
      c.verdict = Verdict::fail;
      c.metrics.margin = 2 + i % 5;
      c.reason = std::string(300, 'r');
    } else if (i % 3 == 0) {
      c.verdict = Verdict::skip;
      c.reason = "skip reason " + std::string(static_cast<std::size_t>(i % 40), 'n') + ": " + std::string(200, 's');
    }
    r.checks.push_back(std::move(c));
  }
  return r;
}

TEST(ParitySummary, StaysFarBelowTheCiSummaryLimitOnAHugeRun) {
  const RunReport r = huge_run();
  const std::string md = report_to_markdown(r);
  EXPECT_LT(md.size(), 200u * 1024) << "GitHub's step summary takes at most 1 MiB; aim ≤ 100 KB for the default run";
  // (find, not HasSubstr: a failure would print all of the summary)
  EXPECT_NE(md.find("## Failures, errors and mistrusted checks (3000)"), std::string::npos);
  EXPECT_NE(md.find("2700 more in [parity-details.md](parity-details.md)"), std::string::npos);
  // 26 lettered skip reasons, the other 13 counted under "*".
  EXPECT_NE(md.find("| * | 13 other reasons (see the details file) |"), std::string::npos);
  // The details keep every check.
  EXPECT_GT(report_to_details_markdown(r).size(), 5u * 1024 * 1024);
}

// The backend finite-difference check states both detection thresholds in its skip reason: a
// legend entry per distinct figure gave the default run 1,770 entries, 1,744 of them under "*".
TEST(ParitySummary, SkipReasonsThatDifferOnlyInTheirFiguresShareOneLegendEntry) {
  RunReport r = synthetic_report();
  r.checks.clear();
  for (int i = 0; i < 40; ++i) {
    CheckResult c = make_check("exp", "cpu", Direction::numerical_backend, 0, Verdict::skip);
    c.reason = fmt::format(
        "adds no detection: the comparison catches a gradient scaled by 1 + {:g}, finite differences of the f32 "
        "forward only 1 + {:g} (u = 2^-24, a 16-bit store)",
        i * 1e-9, 1.5e-5 + i * 1e-6);
    r.checks.push_back(std::move(c));
  }
  const std::string md = report_to_markdown(r);
  EXPECT_NE(md.find("| a | adds no detection: the comparison catches a gradient scaled by 1 + …, finite differences "
                    "of the f32 forward only 1 + … (u = 2^-24, a 16-bit store) | 40 |"),
            std::string::npos)
      << md.substr(md.find("Skip reasons:"), 600);
  EXPECT_EQ(md.find("| b |"), std::string::npos);
  EXPECT_EQ(md.find("other reasons"), std::string::npos);
}

TEST(ParitySummary, ThinnestMarginsLeaveOutCorrectlyRoundedResults) {
  RunReport r = synthetic_report();
  r.checks.push_back(make_check("sqrt", "cpu", Direction::forward, -1, Verdict::pass));
  r.checks.back().metrics.margin = 0.99;  // 0 ULP: the f16-style rounding artefact
  r.checks.back().metrics.max_ulp = 0;
  r.checks.push_back(make_check("tanh", "cpu", Direction::backward, 0, Verdict::pass));
  r.checks.back().metrics.margin = 0.7;  // 1 ULP off: belongs in the table
  r.checks.push_back(make_check("log", "cpu", Direction::numerical_backend, 0, Verdict::pass));
  r.checks.back().metrics.margin = 0.3;  // numerical checks have no ULP distance: kept
  r.checks.back().metrics.max_ulp = 0;
  const std::string md = report_to_markdown(r);
  const std::string table = md.substr(md.find("## Thinnest margins"));
  EXPECT_THAT(table, HasSubstr("leaving out the 1 forward / backward checks"));
  EXPECT_THAT(table, Not(HasSubstr("sqrt(")));
  EXPECT_THAT(table, HasSubstr("| 0.7 | `tanh(shape=7x3,dtype=f32)` backward input 0 | `cpu` | 1 |"));
  EXPECT_THAT(table, HasSubstr("| 0.3 | `log(shape=7x3,dtype=f32)` numerical_backend input 0 |"));
  EXPECT_THAT(md, HasSubstr("Margins of the 4 passing checks"));  // the distribution counts all
}

TEST(ParitySummary, InterruptedRunSaysSoFirst) {
  RunReport r = synthetic_report();
  r.meta.reference_accuracy = {};  // so that 1.2 is the oldest version holding the document
  r.meta.interrupted = true;
  r.meta.catalog = "1064 cases, b29f2ed2c75efd06";
  const std::string md = report_to_markdown(r);
  EXPECT_THAT(md, HasSubstr("**⚠️ Interrupted.**"));
  EXPECT_LT(md.find("Interrupted"), md.find("## Summary"));
  const std::string json = report_to_json_text(r);
  EXPECT_THAT(json, HasSubstr("\"schema_version\": \"1.2\""));  // the oldest version that has the field
  EXPECT_TRUE(report_from_json_text(json).meta.interrupted);
  EXPECT_EQ(report_from_json_text(json).meta.catalog, r.meta.catalog);
  EXPECT_THAT(report_to_html(r), HasSubstr("id=\"interrupted\""));
}

// ---- merge ------------------------------------------------------------------------------------

RunReport shard(int k, int n, const std::string& op) {
  RunReport r = synthetic_report();
  r.meta.shard = std::to_string(k) + "/" + std::to_string(n);
  r.meta.catalog = "812 cases, 00ff00ff00ff00ff";
  for (CheckResult& c : r.checks) c.op = op, c.case_id = op + "(shape=7x3,dtype=f32)";
  return r;
}

TEST(MergeShards, RefusesDifferentCatalogs) {
  RunReport a = shard(1, 2, "exp"), b = shard(2, 2, "log");
  b.meta.catalog = "813 cases, 1234567812345678";
  EXPECT_THAT(
      [&] {
        merge_reports({a, b});
      },
      ::testing::ThrowsMessage<Error>(HasSubstr("catalog \"813 cases, 1234567812345678\"")));
}

TEST(MergeShards, WarnsForEachMissingShardAndKeepsInterrupted) {
  RunReport a = shard(1, 4, "exp"), c = shard(3, 4, "log");
  c.meta.interrupted = true;
  std::vector<std::string> warnings;
  const RunReport merged = merge_reports({a, c}, &warnings);
  EXPECT_THAT(warnings, ::testing::ElementsAre(HasSubstr("shard 2/4 is missing"), HasSubstr("shard 4/4 is missing")));
  EXPECT_TRUE(merged.meta.interrupted);
  EXPECT_EQ(merged.meta.catalog, a.meta.catalog);
  warnings.clear();
  merge_reports({shard(1, 2, "exp"), shard(2, 2, "log")}, &warnings);
  EXPECT_TRUE(warnings.empty());
}

// ---- compare ----------------------------------------------------------------------------------

TEST(Drift, ReportsMarginIncreasesNewFailuresPassesAndMembership) {
  RunReport before = synthetic_report(), after = synthetic_report();
  // checks: 0 exp cpu fwd PASS .15, 1 exp opencl bwd FAIL, 2 log skip, 3 log mistrusted, 4 log error
  after.checks[0].metrics.margin = 0.75;    // drift 0.15 -> 0.75
  after.checks[1].verdict = Verdict::pass;  // fixed
  after.checks[1].metrics.margin = 0.5;
  after.checks[2].verdict = Verdict::fail;  // was skipped, now fails
  after.checks[2].metrics = after.checks[0].metrics;
  after.checks[2].metrics.margin = 1.5;
  after.checks.pop_back();                                                                   // the error vanished
  after.checks.push_back(make_check("sqrt", "cpu", Direction::forward, -1, Verdict::pass));  // appeared

  const RunComparison cmp = compare_runs(before, after);
  ASSERT_EQ(cmp.margins.size(), 2u);  // exp cpu (pass/pass) and exp opencl (fail/pass)
  EXPECT_NEAR(cmp.margins.front().increase(), 0.6, 1e-12);
  EXPECT_NEAR(cmp.margins.back().increase(), 0.5 - 3.5, 1e-12);
  EXPECT_NEAR(cmp.max_increase(), 0.6, 1e-12);
  ASSERT_EQ(cmp.new_failures.size(), 1u);
  EXPECT_EQ(cmp.new_failures[0].new_check->op, "log");
  ASSERT_EQ(cmp.new_passes.size(), 1u);
  EXPECT_EQ(cmp.appeared.size(), 1u);
  EXPECT_EQ(cmp.vanished.size(), 1u);
  EXPECT_TRUE(drift_exceeds(cmp, 0.5));
  EXPECT_TRUE(drift_exceeds(cmp, 10.0));  // a new failure fails the comparison whatever the margins
  const std::string text = comparison_to_text(cmp, before, after, 0.5, 10);
  EXPECT_THAT(text, HasSubstr("+0.6  0.15 -> 0.75  exp(shape=7x3,dtype=f32) [cpu] forward"));
  EXPECT_THAT(text, HasSubstr("New failures and errors (1)"));
  EXPECT_THAT(text, HasSubstr("repro: gradparity run --filter 'log(shape=7x3,dtype=f32)'"));
  EXPECT_THAT(text, HasSubstr(": FAIL"));

  // Margins alone: over the limit fails, under it passes.
  RunReport small = synthetic_report();
  small.checks[0].metrics.margin = 0.35;  // +0.2
  EXPECT_FALSE(drift_exceeds(compare_runs(before, small), 0.5));
  EXPECT_TRUE(drift_exceeds(compare_runs(before, small), 0.1));
  EXPECT_FALSE(drift_exceeds(compare_runs(before, before), 0.0));
}

// Two seeds of the default run: a 16-bit result that stores the other neighbour of the exact value
// reads margin 0 in one run and 0.99 in the next (square(shape=7,dtype=bf16) at seeds 1 and 2),
// which alone put every cross-seed comparison over the limit.
TEST(Drift, SixteenBitResultsWithinOneStorageUlpAreNotDrift) {
  RunReport before = synthetic_report();
  before.checks.resize(1);
  before.checks[0].dtype = DType::bf16;
  before.checks[0].case_id = "square(shape=7,dtype=bf16)";
  before.checks[0].metrics.margin = 0;
  before.checks[0].metrics.max_ulp = 0;
  RunReport after = before;
  after.checks[0].metrics.margin = 0.99;
  after.checks[0].metrics.max_ulp = 1;
  RunComparison cmp = compare_runs(before, after);
  EXPECT_FALSE(drift_exceeds(cmp, 0.25));
  EXPECT_EQ(cmp.storage_rounding.size(), 1u);
  EXPECT_THAT(comparison_to_text(cmp, before, after, 0.25, 10),
              HasSubstr("1 of them are 16-bit results within one storage ULP of the reference in both runs, 1 with a "
                        "changed margin"));
  // Two ULPs away is the kernel's doing, and so is the same move in f32.
  after.checks[0].metrics.max_ulp = 2;
  EXPECT_TRUE(drift_exceeds(compare_runs(before, after), 0.25));
  after.checks[0].metrics.max_ulp = 1;
  before.checks[0].dtype = after.checks[0].dtype = DType::f32;
  EXPECT_TRUE(drift_exceeds(compare_runs(before, after), 0.25));
}

// ---- JUnit ------------------------------------------------------------------------------------

TEST(JUnit, OneTestcasePerCheckWithFailuresAndReproEscaped) {
  RunReport r = synthetic_report();
  r.checks[1].reason = "error <3.5x> the \"bound\" & more\x01";
  const std::string xml = report_to_junit(r);
  EXPECT_EQ(count(xml, "<testcase "), r.checks.size());
  EXPECT_THAT(xml, HasSubstr("<testsuites name=\"gradparity\" tests=\"5\" failures=\"1\" errors=\"1\" skipped=\"2\""));
  EXPECT_THAT(xml,
              HasSubstr("<testsuite name=\"gradparity.cpu\" tests=\"3\" failures=\"0\" errors=\"1\" skipped=\"1\""));
  EXPECT_THAT(xml,
              HasSubstr("<failure type=\"FAIL\" message=\"error &lt;3.5x&gt; the &quot;bound&quot; &amp; more?\">"));
  EXPECT_THAT(xml, HasSubstr("repro: gradparity run --filter &#39;exp(shape=7x3,dtype=f32)&#39; --backend opencl:0"));
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"MISTRUSTED: finite differences cancel to zero\"/>"));
  EXPECT_THAT(xml, Not(HasSubstr("\x01")));
  // Every testcase is closed: self-closing (PASS) or with </testcase>.
  const std::regex self_closing(R"(<testcase [^>]*/>)");
  const auto closed = std::distance(std::sregex_iterator(xml.begin(), xml.end(), self_closing), std::sregex_iterator());
  EXPECT_EQ(static_cast<std::size_t>(closed) + count(xml, "</testcase>"), r.checks.size());
  EXPECT_EQ(closed, 1);
}

TEST(JUnit, StressRunsAreTestcasesToo) {
  RunReport r;
  StressResult ok;
  ok.backend = "cpu", ok.mode = "shared", ok.calls = 100;
  StressResult bad = ok;
  bad.mode = "churn", bad.mismatches = 3, bad.notes = {"exp differs at call 7"};
  r.stress = {ok, bad};
  const std::string xml = report_to_junit(r);
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"gradparity.stress\" tests=\"2\" failures=\"1\""));
  EXPECT_THAT(xml, HasSubstr("exp differs at call 7"));
}

// ---- HTML -------------------------------------------------------------------------------------

TEST(Html, SelfContainedWithHeatmapCellsHistogramsAndDrillDown) {
  RunReport r = synthetic_report();
  r.checks.push_back(make_check("exp", "cpu", Direction::backward, 0, Verdict::pass));
  const std::string html = report_to_html(r);
  EXPECT_THAT(html, HasSubstr("<svg id=\"heatmap\""));
  // One cell per (op, backend, dtype): exp/cpu, exp/opencl:0, log/cpu, log/opencl:0.
  EXPECT_EQ(count(html, "<rect class=\"cell\""), 4u);
  // The failing exp cell red, the erroring log cell dark red (the histograms' ">1" bars are red
  // too: look at heatmap cells only).
  EXPECT_TRUE(std::regex_search(html, std::regex(R"(<rect class="cell"[^>]*fill="#d7191c")")));
  EXPECT_TRUE(std::regex_search(html, std::regex(R"(<rect class="cell"[^>]*fill="#7a0010")")));
  EXPECT_EQ(count(html, "<svg class=\"hist\""), 2u);
  EXPECT_THAT(html, HasSubstr("<details id=\"op-exp\">"));
  EXPECT_THAT(html, HasSubstr("CL_OUT_OF_RESOURCES"));
  // Nothing from elsewhere: no src/href to another host, no external stylesheet or font.
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)=\"(https?:)?//)")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, Not(HasSubstr("<script src")));
  // A check's text cannot inject markup.
  r.checks[1].reason = "<script>alert(1)</script>";
  EXPECT_THAT(report_to_html(r), Not(HasSubstr("<script>alert")));
}

}  // namespace
}  // namespace gp
