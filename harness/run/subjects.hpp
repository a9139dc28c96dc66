// Every subject of the catalog (primitive cases, models, training runs), one lookup by id, one
// selection by --op/--dtype/--filter/--shard, and one way to open a selected device.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "backends/registry.hpp"
#include "harness/check/open_device.hpp"
#include "harness/check/subject.hpp"
#include "harness/graph/model_subject.hpp"

namespace gp {

// --scale: the tiers a selection takes (cases/case.hpp Tier; docs/scale.md).
enum class Scale : std::uint8_t { small, large, all };
// "small" | "large" | "all"; throws UsageError naming the bad value.
Scale parse_scale(const std::string& text);
const char* scale_name(Scale scale);

struct Selection {
  std::vector<std::string> ops;          // --op: op or model names
  std::vector<std::string> dtypes;       // --dtype: dtype names
  std::string filter;                    // --filter: ECMAScript regex searched in the id
  int shard_index = 1, shard_count = 1;  // --shard I/N, 1-based
  Scale scale = Scale::small;            // --scale
};

// Parses "I/N" (1 <= I <= N); throws UsageError naming the bad value.
void parse_shard(const std::string& text, Selection& sel);

// The small tier's primitive cases in registry order, the calls the catalog refuses
// (cases/invalid_calls.hpp), then the models and training runs: the
// default run, the ctest parity suite.
const std::vector<std::unique_ptr<Subject>>& all_subjects();
// The large tier's cases (docs/scale.md), selected with --scale large or all.
const std::vector<std::unique_ptr<Subject>>& large_subjects();
// Cases read from files (Case::given; `--cases-file`, docs/cases-files.md), small tier: a
// selection takes them after the catalog's. Added when a command starts, before any selection or
// lookup (not thread-safe); a case already added (the same values twice) is kept once.
void add_given_cases(std::vector<Case> cases);
const std::vector<std::unique_ptr<Subject>>& given_subjects();
// A subject of either tier, or from a file, by its id.
const Subject* find_subject(const std::string& id);

// The subjects a selection picks (the tiers --scale names, small first), in registry order, every N-th for a shard.
// Throws UsageError for unknown op or dtype names (listing the valid ones) and for a malformed regex.
std::vector<const Subject*> select_subjects(const Selection& sel);
// The models and training runs among them whose name --op gives: the audits that cost a model
// check per node and fault (selftest) or per sampled node (oracle) take a model only when named.
std::vector<const CompositeSubject*> select_named_models(const Selection& sel);
// The primitive cases among them, for the audits that take primitives only (stress, selftest,
// oracle).
std::vector<const Case*> select_cases(const Selection& sel);
// The large-tier cases among them (Subject::large_case), for selftest's large faults.
std::vector<const Subject*> select_large_cases(const Selection& sel);

}  // namespace gp
