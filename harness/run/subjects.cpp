#include "harness/run/subjects.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <regex>
#include <unordered_map>

#include "cases/composite.hpp"
#include "cases/registry.hpp"
#include "cases/special_values.hpp"
#include "core/error.hpp"
#include "harness/check/invalid_call_subject.hpp"
#include "harness/check/primitive_subject.hpp"
#include "harness/check/special_value_subject.hpp"
#include "harness/graph/model_subject.hpp"
#include "harness/large/sampled_subject.hpp"
#include "harness/training/training_subject.hpp"

namespace gp {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void require_known_names(const Selection& sel) {
  const std::vector<std::string> models = model_names();
  for (const auto& o : sel.ops) {
    if (!parse_op(o) && std::count(models.begin(), models.end(), o) == 0) {
      std::vector<std::string> names;
      for (OpKind k : all_ops()) names.emplace_back(op_name(k));
      throw UsageError("unknown op '" + o + "'; valid ops: " + join(names) + "; models: " + join(models));
    }
  }
  for (const auto& d : sel.dtypes)
    if (!parse_dtype(d) || !is_float(*parse_dtype(d)))
      throw UsageError("unknown dtype '" + d + "'; valid dtypes: f16, bf16, f32, f64");
}

}  // namespace

const char* scale_name(Scale scale) {
  switch (scale) {
    case Scale::small:
      return "small";
    case Scale::large:
      return "large";
    case Scale::all:
      return "all";
  }
  return "small";
}

Scale parse_scale(const std::string& text) {
  if (text == "small") return Scale::small;
  if (text == "large") return Scale::large;
  if (text == "all") return Scale::all;
  throw UsageError("unknown --scale '" + text + "'; valid: small, large, all");
}

void parse_shard(const std::string& text, Selection& sel) {
  int i = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 || i < 1 || i > n)
    throw UsageError("malformed --shard '" + text + "': expected I/N with 1 <= I <= N, e.g. 2/4");
  sel.shard_index = i;
  sel.shard_count = n;
}

const std::vector<std::unique_ptr<Subject>>& all_subjects() {
  static const std::vector<std::unique_ptr<Subject>> subjects = [] {
    std::vector<std::unique_ptr<Subject>> out;
    for (const Case& c : all_cases()) out.push_back(std::make_unique<PrimitiveSubject>(c));
    for (const InvalidCall& c : invalid_calls()) out.push_back(std::make_unique<InvalidCallSubject>(c));
    for (const Case& c : special_value_cases()) out.push_back(std::make_unique<SpecialValueSubject>(c));
    for (const Composite& c : all_composites())
      out.push_back(std::make_unique<CompositeSubject>(c, c.decl.training ? kTrainingKind : kModelKind));
    return out;
  }();
  return subjects;
}

const std::vector<std::unique_ptr<Subject>>& large_subjects() {
  static const std::vector<std::unique_ptr<Subject>> subjects = [] {
    std::vector<std::unique_ptr<Subject>> out;
    for (const Case& c : large_cases()) out.push_back(std::make_unique<SampledSubject>(c));
    return out;
  }();
  return subjects;
}

namespace {

struct GivenRegistry {
  std::deque<Case> cases;  // a deque: subjects hold references to its elements
  std::vector<std::unique_ptr<Subject>> subjects;
};

GivenRegistry& given_registry() {
  static GivenRegistry r;
  return r;
}

}  // namespace

void add_given_cases(std::vector<Case> cases) {
  GivenRegistry& r = given_registry();
  for (Case& c : cases) {
    if (find_subject(c.id)) continue;
    r.cases.push_back(std::move(c));
    r.subjects.push_back(std::make_unique<PrimitiveSubject>(r.cases.back()));
  }
}

const std::vector<std::unique_ptr<Subject>>& given_subjects() { return given_registry().subjects; }

const Subject* find_subject(const std::string& id) {
  static const std::unordered_map<std::string, const Subject*> by_id = [] {
    std::unordered_map<std::string, const Subject*> out;
    for (const auto* tier : {&all_subjects(), &large_subjects()})
      for (const auto& s : *tier) out.emplace(s->id(), s.get());
    return out;
  }();
  if (auto it = by_id.find(id); it != by_id.end()) return it->second;
  for (const auto& s : given_subjects())
    if (s->id() == id) return s.get();
  return nullptr;
}

std::vector<const Subject*> select_subjects(const Selection& sel) {
  require_known_names(sel);
  std::regex re;
  try {
    re = std::regex(sel.filter.empty() ? ".*" : sel.filter);
  } catch (const std::regex_error& e) {
    throw UsageError("malformed --filter regex '" + sel.filter + "': " + e.what());
  }
  auto listed = [](const std::vector<std::string>& names, std::string_view name) {
    return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
  };
  std::vector<const Subject*> out;
  std::size_t index = 0;
  std::vector<const Subject*> candidates;
  if (sel.scale != Scale::large)
    for (const auto& s : all_subjects()) candidates.push_back(s.get());
  if (sel.scale != Scale::small)
    for (const auto& s : large_subjects()) candidates.push_back(s.get());
  if (sel.scale != Scale::large)
    for (const auto& s : given_subjects()) candidates.push_back(s.get());
  for (const Subject* s : candidates) {
    if (!listed(sel.ops, s->op_name()) || !listed(sel.dtypes, dtype_name(s->dtype())) ||
        !std::regex_search(s->id(), re))
      continue;
    if (static_cast<int>(index++ % static_cast<std::size_t>(sel.shard_count)) == sel.shard_index - 1) out.push_back(s);
  }
  return out;
}

std::vector<const CompositeSubject*> select_named_models(const Selection& sel) {
  std::vector<const CompositeSubject*> out;
  for (const Subject* s : select_subjects(sel))
    if (s->kind() != SubjectKind::primitive && std::count(sel.ops.begin(), sel.ops.end(), s->op_name()) > 0)
      out.push_back(static_cast<const CompositeSubject*>(s));
  return out;
}

std::vector<const Subject*> select_large_cases(const Selection& sel) {
  std::vector<const Subject*> out;
  for (const Subject* s : select_subjects(sel))
    if (s->large_case()) out.push_back(s);
  return out;
}

std::vector<const Case*> select_cases(const Selection& sel) {
  std::vector<const Case*> out;
  for (const Subject* s : select_subjects(sel))
    if (const Case* c = s->primitive_case()) out.push_back(c);
  return out;
}

}  // namespace gp
