#include "bench/bench_items.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/run/subjects.hpp"

namespace gp {

std::string CreationSize::id() const {
  return fmt::format("creation(elements={},dtype={})", elements, dtype_name(dtype));
}

std::vector<std::string> BenchItems::ids() const {
  std::vector<std::string> out;
  for (const CreationSize& s : creations) out.push_back(s.id());
  for (const Case* c : cases) out.push_back(c->id);
  for (const CompositeSubject* s : composites) out.push_back(s->id());
  return out;
}

BenchItems BenchItems::without(const std::vector<std::string>& ids) const {
  auto kept = [&ids](const std::string& id) { return std::find(ids.begin(), ids.end(), id) == ids.end(); };
  BenchItems out;
  for (const CreationSize& s : creations)
    if (kept(s.id())) out.creations.push_back(s);
  for (const Case* c : cases)
    if (kept(c->id)) out.cases.push_back(c);
  for (const CompositeSubject* s : composites)
    if (kept(s->id())) out.composites.push_back(s);
  return out;
}

namespace {

// A primitive subject's case: a catalog case of either tier, or one from a cases file.
const Case* case_of(const Subject* s) {
  if (!s) return nullptr;
  if (const Case* c = s->primitive_case()) return c;
  return find_case(s->id());
}

}  // namespace

BenchItems bench_items_of(const std::vector<const Subject*>& subjects) {
  BenchItems items;
  for (const Subject* s : subjects) {
    if (const auto* composite = dynamic_cast<const CompositeSubject*>(s)) {
      items.composites.push_back(composite);
    } else if (const Case* c = case_of(s)) {
      items.cases.push_back(c);
    }
  }
  return items;
}

BenchItems bench_items_of(const std::vector<std::string>& ids, const std::vector<CreationSize>& creations) {
  BenchItems items;
  for (const std::string& id : ids) {
    const auto creation =
        std::find_if(creations.begin(), creations.end(), [&id](const CreationSize& s) { return s.id() == id; });
    if (creation != creations.end()) {
      items.creations.push_back(*creation);
    } else if (const Case* c = case_of(find_subject(id))) {
      items.cases.push_back(c);
    } else if (const auto* s = dynamic_cast<const CompositeSubject*>(find_subject(id))) {
      items.composites.push_back(s);
    } else {
      throw Error("no case, model, training run or creation '" + id + "'");
    }
  }
  return items;
}

}  // namespace gp
