#include "cli/cases_file.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/run/subjects.hpp"
#include "reports/npy.hpp"

namespace gp::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Where a value sits in the file, for error lines: "cases.json: case 2 (exp(...)), input 0".
struct Place {
  std::string file;
  std::size_t entry = 0;
  std::string case_id;
  std::string tensor;
  std::string text() const {
    std::string s = file + ": case " + std::to_string(entry + 1);
    if (!case_id.empty()) s += " (" + case_id + ")";
    if (!tensor.empty()) s += ", " + tensor;
    return s;
  }
  [[noreturn]] void fail(const std::string& what) const { throw UsageError(text() + ": " + what); }
};

void require_keys(const json& object, const std::set<std::string>& allowed, const Place& at) {
  if (!object.is_object()) at.fail("expected a JSON object");
  for (const auto& [key, value] : object.items())
    if (allowed.count(key) == 0) {
      std::string list;
      for (const auto& a : allowed) list.append(list.empty() ? "" : ", ").append(a);
      at.fail(fmt::format("unknown key '{}' (valid: {})", key, list));
    }
}

// A JSON number, or a string strtod reads whole ("0x1.62p+6", "-0"): hexadecimal floats carry
// exact bits.
double value_of(const json& v, std::size_t i, const Place& at) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    char* end = nullptr;
    const double x = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size()) return x;
  }
  at.fail("element " + std::to_string(i) + " is " + v.dump() + ", not a number");
}

// A tensor of the expected dtype from a stored one: values are rounded to the dtype, as the
// catalog's draws are (an f32 array for a bf16 case, as `dump` writes them, converts exactly).
HostTensor converted(const HostTensor& t, DType dtype, const Place& at) {
  if (t.dtype() == dtype) return t;
  HostTensor out(dtype, t.shape());
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double x = t.get(i);
    if (!is_float(dtype) && x != std::floor(x))
      at.fail("element " + std::to_string(i) + " is " + std::to_string(x) + ", not an integer index");
    out.set(i, x);
  }
  return out;
}

HostTensor tensor_from_values(const json& spec, DType dtype, const Shape& case_shape, const Place& at) {
  const json& values = spec.at("values");
  if (!values.is_array()) at.fail("'values' must be an array of numbers");
  Shape shape = case_shape;
  if (spec.contains("shape")) {
    std::vector<std::int64_t> dims;
    try {
      dims = spec.at("shape").get<std::vector<std::int64_t>>();
    } catch (const json::exception&) {
      at.fail("'shape' must be an array of integers, got " + spec.at("shape").dump());
    }
    for (auto d : dims)
      if (d < 0) at.fail("'shape' " + spec.at("shape").dump() + " has a negative dimension");
    shape = Shape(dims);
  }
  if (static_cast<std::int64_t>(values.size()) != shape.numel())
    at.fail(std::to_string(values.size()) + " values for shape " + shape.to_string() + " (" +
            std::to_string(shape.numel()) + " elements)" + (spec.contains("shape") ? "" : "; give its 'shape'"));
  HostTensor wide(DType::f64, shape);
  for (std::size_t i = 0; i < values.size(); ++i) wide.set(static_cast<std::int64_t>(i), value_of(values[i], i, at));
  return converted(wide, dtype, at);
}

HostTensor read_tensor(const json& spec, DType dtype, const Shape& case_shape, const fs::path& base_dir,
                       const Place& at) {
  require_keys(spec, {"shape", "values", "npy"}, at);
  if (spec.contains("npy") == spec.contains("values")) at.fail("give either 'values' or 'npy'");
  if (spec.contains("values")) return tensor_from_values(spec, dtype, case_shape, at);
  if (spec.contains("shape")) at.fail("'shape' goes with 'values'; an .npy file has its own");
  if (!spec.at("npy").is_string()) at.fail("'npy' must be a file name");
  const fs::path path = base_dir / spec.at("npy").get<std::string>();
  try {
    return converted(read_npy(path).to_tensor(), dtype, at);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    at.fail(e.what());
  }
}

// A `dump` folder's inputK.npy and cotangent.npy.
json dump_entry(const json& entry, const fs::path& base_dir, std::size_t inputs, const Place& at) {
  if (entry.contains("inputs") || entry.contains("cotangent")) at.fail("'dump' replaces 'inputs' and 'cotangent'");
  if (!entry.at("dump").is_string()) at.fail("'dump' must be a folder written by gradparity dump");
  const fs::path dir = base_dir / entry.at("dump").get<std::string>();
  if (!fs::is_directory(dir)) at.fail("'dump' folder " + dir.string() + " does not exist");
  json out = entry;
  out.erase("dump");
  out["inputs"] = json::array();
  for (std::size_t k = 0; k < inputs; ++k)
    out["inputs"].push_back({{"npy", (dir / ("input" + std::to_string(k) + ".npy")).string()}});
  out["cotangent"] = {{"npy", (dir / "cotangent.npy").string()}};
  return out;
}

Case read_entry(json entry, const fs::path& base_dir, Place at) {
  require_keys(entry, {"case", "note", "inputs", "cotangent", "dump"}, at);
  if (!entry.contains("case") || !entry.at("case").is_string())
    at.fail("'case' (the catalog case id whose op, attributes and dtype the values are for) is required");
  at.case_id = entry.at("case").get<std::string>();
  const Case* base = find_case(at.case_id);
  if (!base) at.fail("no catalog case has this id (gradparity list cases shows them)");
  if (base->decl.tier != Tier::small) at.fail("is a large case; cases files name small-tier cases (docs/scale.md)");
  if (entry.contains("dump")) entry = dump_entry(entry, base_dir, base->decl.inputs.size(), at);
  if (!entry.contains("inputs") || !entry.at("inputs").is_array())
    at.fail("'inputs' (an array of tensors) is required");
  GivenValues values;
  const json& inputs = entry.at("inputs");
  if (inputs.size() != base->decl.inputs.size())
    at.fail("'inputs' has " + std::to_string(inputs.size()) + " tensors, the op takes " +
            std::to_string(base->decl.inputs.size()));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    Place in = at;
    in.tensor = "input " + std::to_string(k);
    values.inputs.push_back(
        read_tensor(inputs[k], base->call.input_dtypes[k], base->decl.inputs[k].shape, base_dir, in));
  }
  if (entry.contains("cotangent")) {
    Place ct = at;
    ct.tensor = "cotangent";
    values.cotangent = read_tensor(entry.at("cotangent"), base->dtype, base->call.output_shape, base_dir, ct);
  }
  if (entry.contains("note")) {
    if (!entry.at("note").is_string()) at.fail("'note' must be a string");
    values.note = entry.at("note").get<std::string>();
  }
  values.file = at.file;
  try {
    return case_with_values(*base, std::move(values));
  } catch (const UsageError& e) {
    at.fail(e.what());
  }
}

std::vector<std::string>& loaded() {
  static std::vector<std::string> files;
  return files;
}

}  // namespace

std::vector<Case> read_cases_file(const std::string& path) {
  std::error_code ec;
  const fs::path file = fs::absolute(path, ec);
  std::ifstream in(file);
  if (ec || !in) throw UsageError("cannot read --cases-file '" + path + "'");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw UsageError(path + ": not JSON: " + e.what());
  }
  Place at;
  at.file = file.string();
  if (!doc.is_object() || !doc.contains("cases") || !doc.at("cases").is_array())
    throw UsageError(path + ": expected an object with a 'cases' array (docs/cases-files.md)");
  for (const auto& [key, value] : doc.items())
    if (key != "cases") throw UsageError(fmt::format("{}: unknown key '{}'", path, key));
  std::vector<Case> out;
  const json& cases = doc.at("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    at.entry = i;
    try {
      out.push_back(read_entry(cases[i], file.parent_path(), at));
    } catch (const json::exception& e) {
      at.fail(e.what());
    }
  }
  if (out.empty()) throw UsageError(path + ": the 'cases' array is empty");
  return out;
}

void load_cases_files(const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    add_given_cases(read_cases_file(p));
    loaded().push_back(fs::absolute(p).string());
  }
}

const std::vector<std::string>& loaded_cases_files() { return loaded(); }

void append_cases_file_args(std::vector<std::string>& args) {
  for (const auto& f : loaded()) args.insert(args.end(), {"--cases-file", f});
}

}  // namespace gp::cli
