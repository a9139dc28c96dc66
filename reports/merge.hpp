// Combining the reports of a sharded run (`--shard 1/4` ... `--shard 4/4`) into one report.
#pragma once

#include <string>
#include <vector>

#include "results/result.hpp"

namespace gp {

// Concatenates the checks of every shard in the given order and combines the metadata:
//   seed           must be equal in every shard (otherwise the inputs differ): gp::Error otherwise
//   checks         a check (case_id, backend, dtype, direction, input) found in two shards means
//                  the shards overlap and would be counted twice: gp::Error
//   tool_version, build_type, build_options   from the first shard
//   started_at     the earliest; wall_seconds the longest (shards run side by side)
//   command_line   the distinct command lines, joined by " ; "
//   shard          the shards' labels joined by "," ("1/2,2/2"); empty labels are skipped
//   devices        the union (equal entries kept once)
//   catalog        must be equal where both shards record one: gp::Error otherwise
//   interrupted    true when any shard was interrupted
//   profile        the sum: every shard's workers and their seconds per phase
// Throws gp::Error for an empty list. When `warnings` is given, it receives one line per shard
// "k/n" missing among shards that name the same n (the merged report then covers part of a run).
RunReport merge_reports(const std::vector<RunReport>& shards, std::vector<std::string>* warnings = nullptr);

}  // namespace gp
