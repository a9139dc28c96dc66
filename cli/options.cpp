#include <fmt/core.h>

#include <chrono>
#include <ctime>

#include "build_info.hpp"
#include "cases/composite.hpp"
#include "cases/registry.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/fnv1a.hpp"

namespace gp::cli {

std::unique_ptr<ReferenceCache> open_reference_cache(const CommonOptions& c) {
  if (!c.reference_cache) return nullptr;
  return std::make_unique<ReferenceCache>(reference_cache_dir(c.backend.cache_dir), kDefaultReferenceCacheCap);
}

RunMetadata make_metadata(const CommonOptions& c) {
  RunMetadata m;
  m.version = build_info::kVersion;
  m.build_type = build_info::kBuildType;
  for (const char* o : build_info::kOptions) m.build_options.emplace_back(o);
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.started_at = buf;
  m.seed = c.seed;
  m.command_line = c.command_line;
  m.catalog = catalog_version();
  return m;
}

std::string catalog_version() {
  // FNV-1a over every case and model id: the same catalog gives the same text on every machine,
  // a case added, removed or renamed changes it (std::hash is not stable across standard
  // libraries).
  Fnv1a h(Fnv1a::kShortStart);
  for (const auto& c : all_cases()) h.add(c.id).add("\n");
  for (const auto& c : all_composites()) h.add(c.id).add("\n");
  return fmt::format("{} cases, {} models, {:016x}", all_cases().size(), all_composites().size(), h.value());
}

const Subject& require_subject(const std::string& id) {
  if (const Subject* s = find_subject(id)) return *s;
  // Suggest subjects of the same op or model, which is what a mistyped id usually wants.
  std::string op = id.substr(0, id.find('('));
  std::string near;
  int shown = 0;
  for (const auto& s : all_subjects()) {
    if (s->op_name() == op && shown < 5) {
      near += (shown++ ? ", " : "") + s->id();
    }
  }
  throw UsageError("unknown case '" + id + "'" + (near.empty() ? "" : "; cases of " + op + " include: " + near) +
                   " (gradparity list cases shows all " + std::to_string(all_subjects().size()) + ")");
}

}  // namespace gp::cli
