// What a bench times (bench_runner.hpp): primitive cases, models and training runs, tensor
// creations; found by id in the catalog, or taken from a selection of subjects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cases/case.hpp"
#include "harness/graph/model_subject.hpp"

namespace gp {

// A device tensor of `elements` created from host data (bench/creation_call.hpp): the creation
// rows of ML libraries' performance reports.
struct CreationSize {
  DType dtype = DType::f32;
  std::int64_t elements = 0;
  std::string id() const;  // "creation(elements=1000,dtype=f32)"
};

// What a bench times: primitive cases, models and training runs, tensor creations.
struct BenchItems {
  std::vector<const Case*> cases;
  std::vector<const CompositeSubject*> composites;
  std::vector<CreationSize> creations;
  std::size_t size() const { return cases.size() + composites.size() + creations.size(); }
  bool empty() const { return size() == 0; }
  std::vector<std::string> ids() const;
  // The items but those whose id is in `ids`.
  BenchItems without(const std::vector<std::string>& ids) const;
};

// The primitive cases, models and training runs among the subjects, in their order.
BenchItems bench_items_of(const std::vector<const Subject*>& subjects);
// Each id a case or a composite of either tier, or one of `creations`; throws gp::Error naming an
// id that is none of them.
BenchItems bench_items_of(const std::vector<std::string>& ids, const std::vector<CreationSize>& creations);

}  // namespace gp
