// Known failures (results/expectations.hpp, reports/expect_file.hpp): which failures an
// expectation accounts for, which it does not, when it is stale, and the file's round trip and
// its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "reports/expect_file.hpp"
#include "reports/json_report.hpp"
#include "reports/junit_report.hpp"
#include "support/temp_folder_test.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

CheckResult check(const std::string& case_id, Verdict v, double margin, const std::string& backend = "cpu") {
  CheckResult c;
  c.case_id = case_id;
  c.backend = backend;
  c.direction = Direction::forward;
  c.verdict = v;
  c.metrics.margin = margin;
  c.reason = v == Verdict::fail ? "error 1 exceeds bound 0.5" : "";
  return c;
}

Expectation expecting(const std::string& check, std::optional<double> ceiling = {}) {
  Expectation e;
  e.backend = "*";
  e.check = check;
  e.max_margin = ceiling;
  return e;
}

TEST(Expectations, AFailureAnExpectationMatchesIsExpectedAndOthersAreNot) {
  // A MISTRUSTED check fails no run: none is unexpected either.
  std::vector<CheckResult> run = {
      check("exp(shape=7,dtype=f32)", Verdict::fail, 3), check("tanh(shape=7,dtype=f32)", Verdict::fail, 3),
      check("exp(shape=127,dtype=f32)", Verdict::pass, 0.2), check("relu(shape=7,dtype=f32)", Verdict::mistrusted, 0)};
  const ExpectationOutcome o = apply_expectations({expecting("exp(*dtype=f32) forward")}, run);
  EXPECT_TRUE(run[0].expected);
  EXPECT_FALSE(run[1].expected);
  EXPECT_EQ(o.expected, 1);
  ASSERT_EQ(o.unexpected.size(), 1U);
  EXPECT_EQ(o.unexpected[0].check, 1U);
  EXPECT_FALSE(o.unexpected[0].matched);
  EXPECT_TRUE(o.stale.empty());  // one of its checks still fails
  EXPECT_FALSE(o.green());
}

TEST(Expectations, AFailureWorseThanItsCeilingOrOfAnotherVerdictIsNew) {
  std::vector<CheckResult> run = {check("exp(shape=7,dtype=f32)", Verdict::fail, 9),
                                  check("log(shape=7,dtype=f32)", Verdict::error, 0)};
  Expectation log = expecting("log(*");
  const ExpectationOutcome o = apply_expectations({expecting("exp(*", 4.0), log}, run);
  ASSERT_EQ(o.unexpected.size(), 2U);
  EXPECT_TRUE(o.unexpected[0].matched);
  EXPECT_THAT(o.unexpected[0].why, HasSubstr("above the expectation's ceiling"));
  EXPECT_THAT(o.unexpected[1].why, HasSubstr("expected FAIL, got ERROR"));
  EXPECT_EQ(o.expected, 0);
}

TEST(Expectations, AnExpectationWhoseChecksAllPassIsStaleOneThatMatchesNothingIsNot) {
  std::vector<CheckResult> run = {check("exp(shape=7,dtype=f32)", Verdict::pass, 0.3),
                                  check("exp(shape=7,dtype=f32)", Verdict::skip, 0, "opencl:0")};
  const ExpectationOutcome o = apply_expectations({expecting("exp(*"), expecting("gelu(*")}, run);
  ASSERT_EQ(o.stale.size(), 1U);
  EXPECT_EQ(o.stale[0].expectation, 0U);
  EXPECT_EQ(o.stale[0].passing, 1);
  EXPECT_FALSE(o.green());
}

TEST(Expectations, WrittenExpectationsMatchTheirRunOnAnotherMachine) {
  std::vector<CheckResult> run = {
      check("matmul(shape=4x4|4x4,dtype=f32)", Verdict::fail, 2.5, "plugin:build/one-checkout/libgp_mine.so:0")};
  const std::vector<Expectation> written = expectations_of(run);
  ASSERT_EQ(written.size(), 1U);
  EXPECT_EQ(written[0].backend, "plugin:*/libgp_mine.so:0");
  EXPECT_EQ(written[0].max_margin, 5.0);
  EXPECT_EQ(written[0].note, run[0].reason);
  run[0].backend = "plugin:another/checkout/libgp_mine.so:0";
  EXPECT_TRUE(apply_expectations(written, run).green());
}

// parity.json keeps the mark (schema 1.12), and JUnit counts an expected failure as skipped.
TEST(Expectations, TheMarkRoundTripsThroughParityJsonAndJunitSkipsIt) {
  RunReport r;
  r.checks = {check("exp(shape=7,dtype=f32)", Verdict::fail, 3), check("log(shape=7,dtype=f32)", Verdict::fail, 3)};
  r.checks[0].expected = true;
  const std::string text = report_to_json_text(r);
  EXPECT_THAT(text, HasSubstr("\"schema_version\": \"1.12\""));
  const RunReport back = report_from_json_text(text);
  EXPECT_TRUE(back.checks[0].expected);
  EXPECT_FALSE(back.checks[1].expected);
  const std::string junit = report_to_junit(r);
  EXPECT_THAT(junit, HasSubstr("failures=\"1\" errors=\"0\" skipped=\"1\""));
  EXPECT_THAT(junit, HasSubstr("expected FAIL (--expect)"));
}

class ExpectFile : public TempFolderTest {};

TEST_F(ExpectFile, RoundTripsAndRefusesAMalformedEntryNamingIt) {
  Expectation e = expecting("exp(*) forward", 3.5);
  e.reason = "exceeds bound";
  e.note = "its exp approximation";
  std::filesystem::create_directories(dir_);
  const std::string path = (dir_ / "known.json").string();
  write_expect_file(path, {e});
  const std::vector<Expectation> back = read_expect_file(path);
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(back[0].check, e.check);
  EXPECT_EQ(back[0].max_margin, 3.5);
  EXPECT_EQ(back[0].reason, e.reason);
  EXPECT_EQ(back[0].note, e.note);
  EXPECT_EQ(back[0].verdict, Verdict::fail);

  std::ofstream(path) << R"({"gradparity_expectations": 1, "expect": [{"backend": "*", "verdict": "FAIL"}]})";
  try {
    read_expect_file(path);
    ADD_FAILURE() << "a missing check pattern was accepted";
  } catch (const UsageError& err) {
    EXPECT_THAT(err.what(), HasSubstr("expect[0].check"));
  }
}

}  // namespace
}  // namespace gp
