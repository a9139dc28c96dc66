#include "reports/expect_file.hpp"

#include "core/error.hpp"
#include "reports/file_io.hpp"
#include "reports/json_codec.hpp"
#include "results/result_names.hpp"

namespace gp {

namespace {

using json_codec::FieldReader;
using json_codec::Json;
using json_codec::Need;

constexpr const char* kFormatKey = "gradparity_expectations";
constexpr int kFormat = 1;

Expectation expectation_from(const FieldReader& r) {
  Expectation e;
  e.backend = r.string("backend", Need::required);
  e.check = r.string("check", Need::required);
  const std::string verdict = r.string("verdict", Need::required);
  const auto v = parse_verdict(verdict);
  if (!v || (*v != Verdict::fail && *v != Verdict::error))
    throw Error(r.path_of("verdict") + ": \"" + verdict + "\" is not an expected failure (FAIL or ERROR)");
  e.verdict = *v;
  e.reason = r.string("reason");
  if (r.has("max_margin")) {
    e.max_margin = r.number("max_margin");
    if (!(*e.max_margin > 0)) throw Error(r.path_of("max_margin") + ": must be a positive number");
  }
  e.note = r.string("note");
  return e;
}

}  // namespace

std::vector<Expectation> read_expect_file(const std::string& path) {
  try {
    const std::string text = read_whole_file(path);
    Json doc;
    try {
      doc = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw Error(std::string("not valid JSON: ") + e.what());
    }
    const FieldReader root(doc, "");
    if (root.int64(kFormatKey, 0, Need::required) != kFormat)
      throw Error(root.path_of(kFormatKey) + ": this gradparity reads format " + std::to_string(kFormat));
    std::vector<Expectation> out;
    const Json& list = root.array("expect", Need::required);
    for (std::size_t i = 0; i < list.size(); ++i)
      out.push_back(expectation_from(FieldReader(list[i], "expect[" + std::to_string(i) + "]")));
    return out;
  } catch (const Error& e) {
    throw UsageError("--expect " + path + ": " + e.what());
  }
}

void write_expect_file(const std::string& path, const std::vector<Expectation>& expectations) {
  Json list = Json::array();
  for (const Expectation& e : expectations) {
    Json j;
    j["backend"] = e.backend;
    j["check"] = e.check;
    j["verdict"] = std::string(verdict_name(e.verdict));
    if (e.max_margin) j["max_margin"] = json_codec::encode_number(*e.max_margin);
    if (!e.reason.empty()) j["reason"] = e.reason;
    if (!e.note.empty()) j["note"] = e.note;
    list.push_back(std::move(j));
  }
  Json doc;
  doc[kFormatKey] = kFormat;
  doc["expect"] = std::move(list);
  write_file_atomically(path, doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace gp
