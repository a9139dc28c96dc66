// Internal to reports/: the JSON value encodings of parity.json (non-finite numbers as strings)
// and a field reader whose every error names the full path of the offending field, e.g.
// "checks[3].margin: expected a number or \"inf\", \"-inf\", \"nan\"".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gp::json_codec {

// ordered_json keeps the documented field order in the written file.
using Json = nlohmann::ordered_json;

// Finite values become JSON numbers (shortest text that reads back to the same double);
// +inf, -inf and NaN become the strings "inf", "-inf" and "nan", which plain JSON cannot hold.
Json encode_number(double x);
// The inverse; throws gp::Error naming `path` for anything else.
double decode_number(const Json& value, const std::string& path);

enum class Need { required, optional };

class FieldReader {
 public:
  // Throws gp::Error when `object` is not a JSON object.
  FieldReader(const Json& object, std::string path);

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const;
  // Present and not null.
  bool has(std::string_view key) const;

  // Optional fields that are absent or null give the fallback; required ones throw.
  std::string string(std::string_view key, Need need = Need::optional) const;
  double number(std::string_view key, Need need = Need::optional) const;
  std::int64_t int64(std::string_view key, std::int64_t fallback, Need need = Need::optional) const;
  // Unsigned 64-bit: a JSON integer or a string of decimal digits (for consumers whose numbers
  // are doubles and would round seeds above 2^53).
  std::uint64_t uint64(std::string_view key, Need need = Need::optional) const;
  bool boolean(std::string_view key, bool fallback, Need need = Need::optional) const;
  std::vector<std::string> strings(std::string_view key) const;
  std::vector<double> numbers(std::string_view key) const;

  FieldReader object(std::string_view key, Need need = Need::required) const;
  // The elements of an array field (empty when an optional array is absent).
  const Json& array(std::string_view key, Need need = Need::optional) const;

 private:
  const Json* find(std::string_view key, Need need) const;  // nullptr when absent/null and optional
  [[noreturn]] void type_error(std::string_view key, std::string_view expected) const;

  const Json* object_;
  std::string path_;
};

}  // namespace gp::json_codec
