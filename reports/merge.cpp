#include "reports/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "core/error.hpp"
#include "results/result_names.hpp"

namespace gp {

namespace {

std::string shard_label(const RunReport& r, std::size_t i) {
  return r.meta.shard.empty() ? fmt::format("report {}", i + 1)
                              : fmt::format("report {} (shard {})", i + 1, r.meta.shard);
}

bool same_device(const DeviceSummary& a, const DeviceSummary& b) {
  return std::tie(a.id, a.backend, a.name, a.driver, a.api_version, a.available, a.unavailable_reason, a.notes) ==
         std::tie(b.id, b.backend, b.name, b.driver, b.api_version, b.available, b.unavailable_reason, b.notes);
}

void append_unique(std::string& joined, const std::string& item, std::string_view sep, std::vector<std::string>& seen) {
  if (item.empty() || std::find(seen.begin(), seen.end(), item) != seen.end()) return;
  if (!joined.empty()) joined += sep;
  joined += item;
  seen.push_back(item);
}

using CheckKey = std::tuple<std::string, std::string, DType, Direction, int>;
CheckKey key_of(const CheckResult& c) {
  // The input index only distinguishes checks that have one (forward ignores it).
  return {c.case_id, c.backend, c.dtype, c.direction, c.direction == Direction::forward ? -1 : c.input};
}

// "k/n" -> {k, n}; {0, 0} for anything else (an unsharded run, an already merged "1/2,2/2").
std::pair<int, int> parse_label(const std::string& label) {
  int k = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(label.c_str(), "%d%c%d%c", &k, &slash, &n, &extra) != 3 || slash != '/' || k < 1 || k > n)
    return {0, 0};
  return {k, n};
}

// Shards of a run cut N ways that are not all here: the merge covers only part of the catalog,
// which is worth saying but not refusing (a runner may have died; its rerun merges later).
std::vector<std::string> missing_shards(const std::vector<RunReport>& shards) {
  std::map<int, std::set<int>> present;  // n -> the k seen
  for (const RunReport& r : shards) {
    std::string labels = r.meta.shard;  // merged reports carry "1/3,2/3"
    for (std::size_t at = 0; at <= labels.size();) {
      std::size_t end = std::min(labels.find(',', at), labels.size());
      auto [k, n] = parse_label(labels.substr(at, end - at));
      if (n > 0) present[n].insert(k);
      at = end + 1;
    }
  }
  std::vector<std::string> out;
  for (const auto& [n, ks] : present)
    for (int k = 1; k <= n; ++k)
      if (!ks.count(k))
        out.push_back(
            fmt::format("shard {}/{} is missing: the merged report covers {} of {} shards", k, n, ks.size(), n));
  return out;
}

// Shards checked disjoint cases: counts and costs add up, the worst ratio is the worst of all.
void merge_accuracy(ReferenceAccuracy& into, const ReferenceAccuracy& a) {
  if (a.oracle.empty()) return;
  if (into.oracle.empty() || a.worst_ratio > into.worst_ratio) {
    into.worst_ratio = a.worst_ratio;
    into.worst_case = a.worst_case;
    into.worst_direction = a.worst_direction;
    into.worst_index = a.worst_index;
  }
  into.oracle = a.oracle;
  into.limit = a.limit;
  into.cases += a.cases;
  into.points += a.points;
  into.cases_skipped += a.cases_skipped;
  into.points_skipped += a.points_skipped;
  into.seconds += a.seconds;
}

}  // namespace

RunReport merge_reports(const std::vector<RunReport>& shards, std::vector<std::string>* warnings) {
  if (shards.empty()) throw Error("merge: no reports to merge");
  const RunMetadata& first = shards.front().meta;
  for (std::size_t i = 1; i < shards.size(); ++i) {
    if (shards[i].meta.seed != first.seed)
      throw Error(fmt::format(
          "merge: {} has seed {} but {} has seed {}; shards of one run share a seed (rerun the "
          "shard with --seed {})",
          shard_label(shards[i], i), shards[i].meta.seed, shard_label(shards[0], 0), first.seed, first.seed));
    const std::string& cat = shards[i].meta.catalog;
    if (!cat.empty() && !first.catalog.empty() && cat != first.catalog)
      throw Error(
          fmt::format("merge: {} was cut from catalog \"{}\" but {} from \"{}\"; shards of one run come from "
                      "one gradparity build (tool versions {} and {})",
                      shard_label(shards[i], i), cat, shard_label(shards[0], 0), first.catalog, shards[i].meta.version,
                      first.version));
  }
  if (warnings) *warnings = missing_shards(shards);

  RunReport merged;
  merged.meta.version = first.version;
  merged.meta.build_type = first.build_type;
  merged.meta.build_options = first.build_options;
  merged.meta.seed = first.seed;
  merged.meta.started_at = first.started_at;
  std::vector<std::string> seen_commands, seen_shards;
  std::map<CheckKey, std::size_t> owner;  // check -> index of the shard that holds it
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const RunMetadata& m = shards[i].meta;
    if (!m.started_at.empty() && (merged.meta.started_at.empty() || m.started_at < merged.meta.started_at))
      merged.meta.started_at = m.started_at;  // ISO 8601 UTC strings order like the times they name
    merged.meta.wall_seconds = std::max(merged.meta.wall_seconds, m.wall_seconds);
    merged.meta.interrupted = merged.meta.interrupted || m.interrupted;
    if (merged.meta.catalog.empty()) merged.meta.catalog = m.catalog;
    merge_accuracy(merged.meta.reference_accuracy, m.reference_accuracy);
    merged.meta.profile += m.profile;  // shards' workers and times add up
    append_unique(merged.meta.command_line, m.command_line, " ; ", seen_commands);
    append_unique(merged.meta.shard, m.shard, ",", seen_shards);
    for (const DeviceSummary& d : m.devices) {
      auto same = [&](const DeviceSummary& e) { return same_device(e, d); };
      if (std::none_of(merged.meta.devices.begin(), merged.meta.devices.end(), same)) merged.meta.devices.push_back(d);
    }
    for (const CheckResult& c : shards[i].checks) {
      auto [it, inserted] = owner.emplace(key_of(c), i);
      if (!inserted && it->second != i)
        throw Error(fmt::format("merge: check {} on {} ({}) appears in {} and in {}: the shards overlap", c.case_id,
                                c.backend, check_label(c), shard_label(shards[it->second], it->second),
                                shard_label(shards[i], i)));
      merged.checks.push_back(c);
    }
    // Stress rows are whole runs of one mode: kept as they are, in shard order.
    merged.stress.insert(merged.stress.end(), shards[i].stress.begin(), shards[i].stress.end());
  }
  return merged;
}

}  // namespace gp
