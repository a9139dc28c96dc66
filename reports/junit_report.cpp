#include "reports/junit_report.hpp"

#include <fmt/format.h>

#include <iterator>
#include <map>

#include "reports/file_io.hpp"
#include "reports/markdown_sections.hpp"
#include "reports/summary.hpp"
#include "reports/xml_text.hpp"

namespace gp {

namespace {

std::string xml(std::string_view text) { return xml_escape(text); }

std::string check_body(const CheckResult& c) {
  std::string body = c.reason;
  if (has_metrics(c))
    body += fmt::format("\nmargin {} (bound {}), max abs {}, max ULP {}, {} non-finite of {}", md::g3(c.metrics.margin),
                        md::g3(c.metrics.bound), md::g3(c.metrics.max_abs), md::g3(c.metrics.max_ulp),
                        c.metrics.nonfinite, c.metrics.elements);
  if (!c.tolerance.empty()) body += "\ntolerance: " + c.tolerance;
  if (!c.repro.empty()) body += "\nrepro: " + c.repro;
  return body;
}

void append_testcase(std::string& out, const CheckResult& c) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\"",
                 xml("gradparity." + c.backend + "." + md::op_of(c)), xml(c.case_id + " " + check_label(c)),
                 c.time_ms / 1000.0);
  if (c.expected) {  // a known failure (--expect): reported as CI tools report an expected failure
    fmt::format_to(o, ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                   xml("expected " + std::string(verdict_name(c.verdict)) + " (--expect): " + c.reason));
    return;
  }
  switch (c.verdict) {
    case Verdict::pass:
      out += "/>\n";
      return;
    case Verdict::fail:
      fmt::format_to(o, ">\n      <failure type=\"FAIL\" message=\"{}\">{}</failure>\n", xml(c.reason),
                     xml(check_body(c)));
      break;
    case Verdict::error:
      fmt::format_to(o, ">\n      <error type=\"ERROR\" message=\"{}\">{}</error>\n", xml(c.reason),
                     xml(check_body(c)));
      break;
    case Verdict::skip:
      fmt::format_to(o, ">\n      <skipped message=\"{}\"/>\n", xml(c.reason));
      break;
    case Verdict::mistrusted:
      fmt::format_to(o, ">\n      <skipped message=\"{}\"/>\n", xml("MISTRUSTED: " + c.reason));
      break;
  }
  out += "    </testcase>\n";
}

// An expected failure (--expect) is a skipped testcase, as CI tools show one; MISTRUSTED too.
std::int64_t failures(const VerdictCounts& n) { return n[Verdict::fail] - n.expected_of(Verdict::fail); }
std::int64_t errors(const VerdictCounts& n) { return n[Verdict::error] - n.expected_of(Verdict::error); }
std::int64_t skipped(const VerdictCounts& n) {
  return n[Verdict::skip] + n[Verdict::mistrusted] + n.expected_of(Verdict::fail) + n.expected_of(Verdict::error);
}

}  // namespace

std::string report_to_junit(const RunReport& report) {
  // Suites per backend, in order of first appearance, as the summary counts them.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const CheckResult*>> by_backend;
  for (const CheckResult& c : report.checks) {
    auto& v = by_backend[c.backend];
    if (v.empty()) order.push_back(c.backend);
    v.push_back(&c);
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  auto o = std::back_inserter(out);
  const VerdictCounts all = summarize(report.checks).overall;
  std::int64_t stress_failed = 0;
  for (const StressResult& s : report.stress) stress_failed += s.failed();
  fmt::format_to(
      o, "<testsuites name=\"gradparity\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
      all.total() + static_cast<std::int64_t>(report.stress.size()), failures(all) + stress_failed, errors(all),
      skipped(all), report.meta.wall_seconds);
  auto properties = [&] {
    fmt::format_to(o, "    <properties>\n      <property name=\"seed\" value=\"{}\"/>\n", report.meta.seed);
    if (!report.meta.shard.empty())
      fmt::format_to(o, "      <property name=\"shard\" value=\"{}\"/>\n", xml(report.meta.shard));
    if (report.meta.interrupted) out += "      <property name=\"interrupted\" value=\"true\"/>\n";
    out += "    </properties>\n";
  };
  for (const std::string& b : order) {
    VerdictCounts n;
    double seconds = 0;
    for (const CheckResult* c : by_backend[b]) n.add(*c), seconds += c->time_ms / 1000.0;
    fmt::format_to(
        o, "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
        xml("gradparity." + b), n.total(), failures(n), errors(n), skipped(n), seconds);
    properties();
    for (const CheckResult* c : by_backend[b]) append_testcase(out, *c);
    out += "  </testsuite>\n";
  }
  if (!report.stress.empty()) {
    fmt::format_to(o,
                   "  <testsuite name=\"gradparity.stress\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
                   report.stress.size(), stress_failed);
    properties();
    for (const StressResult& s : report.stress) {
      fmt::format_to(o, "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"",
                     xml("gradparity.stress." + s.backend),
                     xml(s.mode + (s.inject.empty() ? "" : " inject " + s.inject)), s.time_s);
      if (!s.failed()) {
        out += "/>\n";
        continue;
      }
      std::string body = fmt::format(
          "{} threads, {} calls: {} mismatches, {} non-finite, {} errors, {} validation messages{}", s.threads, s.calls,
          s.mismatches, s.nonfinite, s.errors, s.validation_count, s.crash.empty() ? "" : ", " + s.crash);
      for (const std::string& n : s.notes) body += "\n" + n;
      fmt::format_to(o, ">\n      <failure type=\"FAIL\" message=\"{}\">{}</failure>\n    </testcase>\n",
                     xml(body.substr(0, body.find('\n'))), xml(body));
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

void write_junit(const std::filesystem::path& path, const RunReport& report) {
  write_file_atomically(path, report_to_junit(report));
}

}  // namespace gp
