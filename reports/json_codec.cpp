#include "reports/json_codec.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace gp::json_codec {

namespace {
const Json& empty_object() {
  static const Json empty = Json::object();
  return empty;
}
const Json& empty_array() {
  static const Json empty = Json::array();
  return empty;
}
}  // namespace

Json encode_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

double decode_number(const Json& value, const std::string& path) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  throw Error(path + ": expected a number or one of \"inf\", \"-inf\", \"nan\", got " + value.dump());
}

FieldReader::FieldReader(const Json& object, std::string path) : object_(&object), path_(std::move(path)) {
  if (!object.is_object())
    throw Error((path_.empty() ? std::string("document") : path_) + ": expected a JSON object, got " +
                std::string(object.type_name()));
}

std::string FieldReader::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool FieldReader::has(std::string_view key) const {
  auto it = object_->find(key);
  return it != object_->end() && !it->is_null();
}

const Json* FieldReader::find(std::string_view key, Need need) const {
  auto it = object_->find(key);
  if (it != object_->end() && !it->is_null()) return &*it;
  if (need == Need::required) throw Error(path_of(key) + ": required field is missing");
  return nullptr;
}

void FieldReader::type_error(std::string_view key, std::string_view expected) const {
  auto it = object_->find(key);
  throw Error(path_of(key) + ": expected " + std::string(expected) + ", got " + it->dump());
}

std::string FieldReader::string(std::string_view key, Need need) const {
  const Json* v = find(key, need);
  if (!v) return {};
  if (!v->is_string()) type_error(key, "a string");
  return v->get<std::string>();
}

double FieldReader::number(std::string_view key, Need need) const {
  const Json* v = find(key, need);
  return v ? decode_number(*v, path_of(key)) : 0.0;
}

std::int64_t FieldReader::int64(std::string_view key, std::int64_t fallback, Need need) const {
  const Json* v = find(key, need);
  if (!v) return fallback;
  if (v->is_number_integer() && !(v->is_number_unsigned() && v->get<std::uint64_t>() > INT64_MAX))
    return v->get<std::int64_t>();
  type_error(key, "a signed 64-bit integer");
}

std::uint64_t FieldReader::uint64(std::string_view key, Need need) const {
  const Json* v = find(key, need);
  if (!v) return 0;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  if (v->is_string()) {
    const auto& s = v->get_ref<const std::string&>();
    std::uint64_t out = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return out;
  }
  type_error(key, "an unsigned 64-bit integer (or a string of decimal digits)");
}

bool FieldReader::boolean(std::string_view key, bool fallback, Need need) const {
  const Json* v = find(key, need);
  if (!v) return fallback;
  if (!v->is_boolean()) type_error(key, "true or false");
  return v->get<bool>();
}

std::vector<std::string> FieldReader::strings(std::string_view key) const {
  std::vector<std::string> out;
  const Json& items = array(key);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_string()) throw Error(path_of(key) + "[" + std::to_string(i) + "]: expected a string");
    out.push_back(items[i].get<std::string>());
  }
  return out;
}

std::vector<double> FieldReader::numbers(std::string_view key) const {
  std::vector<double> out;
  const Json& items = array(key);
  for (std::size_t i = 0; i < items.size(); ++i)
    out.push_back(decode_number(items[i], path_of(key) + "[" + std::to_string(i) + "]"));
  return out;
}

FieldReader FieldReader::object(std::string_view key, Need need) const {
  const Json* v = find(key, need);
  return FieldReader(v ? *v : empty_object(), path_of(key));
}

const Json& FieldReader::array(std::string_view key, Need need) const {
  const Json* v = find(key, need);
  if (!v) return empty_array();
  if (!v->is_array()) type_error(key, "an array");
  return *v;
}

}  // namespace gp::json_codec
