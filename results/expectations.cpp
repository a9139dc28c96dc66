#include "results/expectations.hpp"

#include <fnmatch.h>

#include <cmath>

#include "results/result_names.hpp"

namespace gp {

namespace {

// What fails a run without --expect; a MISTRUSTED check does not, so none is expected either.
bool failing(Verdict v) { return v == Verdict::fail || v == Verdict::error; }

bool matches(const Expectation& e, const CheckResult& c, const std::string& id) {
  return fnmatch(e.backend.c_str(), c.backend.c_str(), 0) == 0 && fnmatch(e.check.c_str(), id.c_str(), 0) == 0;
}

// Why `e` does not account for the failing check `c` that it matches; empty when it does.
std::string mismatch(const Expectation& e, const CheckResult& c) {
  if (e.verdict != c.verdict)
    return "expected " + std::string(verdict_name(e.verdict)) + ", got " + std::string(verdict_name(c.verdict));
  if (!e.reason.empty() && c.reason.find(e.reason) == std::string::npos)
    return "its reason does not contain \"" + e.reason + "\"";
  if (e.max_margin && c.verdict == Verdict::fail && !(c.metrics.margin <= *e.max_margin))
    return "margin " + std::to_string(c.metrics.margin) + " above the expectation's ceiling " +
           std::to_string(*e.max_margin);
  return {};
}

std::string escaped(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '*' || ch == '?' || ch == '[' || ch == ']' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

// A plugin's device id names the library by its path, which differs between machines.
std::string portable_backend(const std::string& id) {
  const auto slash = id.rfind('/');
  if (id.rfind("plugin:", 0) != 0 || slash == std::string::npos) return escaped(id);
  return "plugin:*/" + escaped(id.substr(slash + 1));
}

}  // namespace

std::string check_id(const CheckResult& c) { return c.case_id + " " + check_label(c); }

ExpectationOutcome apply_expectations(const std::vector<Expectation>& expectations, std::vector<CheckResult>& checks) {
  ExpectationOutcome out;
  std::vector<std::int64_t> failing_seen(expectations.size()), passing_seen(expectations.size());
  for (std::size_t i = 0; i < checks.size(); ++i) {
    CheckResult& c = checks[i];
    const bool fails = failing(c.verdict);
    if (!fails && c.verdict != Verdict::pass) continue;
    const std::string id = check_id(c);
    std::string why;  // what differs from the first expectation that matches it
    bool matched = false;
    for (std::size_t k = 0; k < expectations.size(); ++k) {
      if (!matches(expectations[k], c, id)) continue;
      if (!fails) {
        ++passing_seen[k];
        continue;
      }
      ++failing_seen[k];  // by every expectation it matches: none of them is stale
      if (c.expected) continue;
      const std::string m = mismatch(expectations[k], c);
      if (m.empty()) {
        c.expected = true;
        ++out.expected;
      } else if (!matched) {
        why = m;
      }
      matched = true;
    }
    if (fails && !c.expected) out.unexpected.push_back({i, matched, why});
  }
  for (std::size_t k = 0; k < expectations.size(); ++k)
    if (failing_seen[k] == 0 && passing_seen[k] > 0) out.stale.push_back({k, passing_seen[k]});
  return out;
}

std::vector<Expectation> expectations_of(const std::vector<CheckResult>& checks) {
  std::vector<Expectation> out;
  for (const CheckResult& c : checks) {
    if (!failing(c.verdict)) continue;
    Expectation e;
    e.backend = portable_backend(c.backend);
    e.check = escaped(check_id(c));
    e.verdict = c.verdict;
    if (c.verdict == Verdict::fail && std::isfinite(c.metrics.margin)) e.max_margin = 2 * c.metrics.margin;
    e.note = c.reason;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace gp
