// Known failures: a library with findings it has not fixed yet puts gradparity in its CI with a
// list of the failures it expects (`gradparity run --expect FILE`, docs/ci.md). A run is then
// green while only those fail, red on any other failure, red when an expected failure got worse
// than its margin ceiling, and red when an expected failure passes (the entry is stale: remove
// it). The file's format is reports/expect_file.hpp's; the matching is here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/result.hpp"

namespace gp {

struct Expectation {
  std::string backend;               // glob (fnmatch) over the device id: "plugin:*/libgp_onednn.so:0"
  std::string check;                 // glob over the check id, check_id(): "exp(shape=*,dtype=f32) forward"
  Verdict verdict = Verdict::fail;   // FAIL or ERROR: what fails a run (a MISTRUSTED check does not)
  std::string reason;                // a part of the reason it must contain; empty: any
  std::optional<double> max_margin;  // a FAIL with a larger margin is a new failure
  std::string note;                  // why it fails, for the reader of the file
};

// "<case id> <check label>": what an expectation's `check` matches.
std::string check_id(const CheckResult& c);

// A failing check no expectation accounts for, or one that got worse than its expectation allows.
struct UnexpectedFailure {
  std::size_t check = 0;  // index into the run's checks
  bool matched = false;   // an expectation's patterns match it, but it fails otherwise
  std::string why;        // what differs: "margin 9.1 above the expectation's ceiling 4"
};

// An expectation whose checks all pass now.
struct StaleExpectation {
  std::size_t expectation = 0;
  std::int64_t passing = 0;  // checks it matches that PASS
};

struct ExpectationOutcome {
  std::int64_t expected = 0;  // failing checks an expectation accounts for (CheckResult::expected set)
  std::vector<UnexpectedFailure> unexpected;
  std::vector<StaleExpectation> stale;
  bool green() const { return unexpected.empty() && stale.empty(); }
};

// Marks the failing checks (FAIL, ERROR) an expectation accounts for and finds the
// others and the stale expectations. An expectation that matches no check of this run (its case
// not selected, its device absent) is neither.
ExpectationOutcome apply_expectations(const std::vector<Expectation>& expectations, std::vector<CheckResult>& checks);

// Expectations for every failing check of a run, for `--write-expect`: the check id as it is
// (glob characters escaped), a plugin's path reduced to its file name ("plugin:*/libx.so:0", so
// that the file serves on another machine), the verdict, a FAIL's ceiling of twice its measured
// margin, and the reason as a note (not as a condition: its figures differ between machines).
std::vector<Expectation> expectations_of(const std::vector<CheckResult>& checks);

}  // namespace gp
