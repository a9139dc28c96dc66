// Internal to reports/: the pieces parity.md is assembled from, and the text helpers they share.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "results/result.hpp"

namespace gp::md {

// "✅ PASS", "❌ FAIL", ... and the bare symbols.
std::string_view verdict_symbol(Verdict v);
std::string verdict_badge(Verdict v);

// Text safe inside a table cell: '|' escaped, line breaks folded into spaces.
std::string cell(std::string_view text);
// An inline code span that survives backticks in the text; also cell-safe.
std::string code(std::string_view text);
// %.3g, with "inf", "-inf", "nan" for non-finite values.
std::string g3(double x);
// Shortest text that reads back to the same double (for worst-element values).
std::string exact(double x);
// Cuts text to at most `max_chars` characters (UTF-8 aware), marking the cut with "…".
std::string shorten(std::string_view text, std::size_t max_chars);

// A reason with its measured figures folded into "…", so that reasons which differ only in
// their numbers share one legend entry: "finite differences of the f32 forward only 1 + …".
// Names and powers stay (f32, 2^-11, 16-bit).
std::string reason_class(std::string_view reason);
// The group a SKIP belongs to in legends and tables: its typed kind, then its words with their
// figures folded (reason_class), so skips of two kinds never share an entry however alike their
// words: "unsupported: dtype f64 not supported by …".
std::string skip_group(const CheckResult& c);
// The op a check belongs to: its `op` field, or the case id up to '(' when that is empty.
std::string op_of(const CheckResult& c);
// An op of the catalog whose inputs get no gradient (optimizer steps): the reports say "forward
// only" where other ops have their backward checks.
bool forward_only(std::string_view op);
inline constexpr std::string_view kForwardOnly = "forward only";
// Distinct ops in catalog order (core/op_list.hpp), unknown names after them alphabetically.
std::vector<std::string> ops_in_catalog_order(const std::vector<CheckResult>& checks);
// Backends that have checks: in the order of the metadata's device list, then the others in
// order of appearance.
std::vector<std::string> backends_in_order(const RunReport& report);

// The rows of an op x backend table (ops in catalog order, backends in report order) after a
// header row that names the backends; `cell` renders one op's checks on one backend.
using CellRenderer = std::function<std::string(const std::vector<const CheckResult*>&)>;
void append_op_backend_rows(std::string& out, const RunReport& report, const CellRenderer& cell);

void append_header(std::string& out, const RunMetadata& meta);
void append_summary(std::string& out, const RunReport& report);
void append_matrix(std::string& out, const RunReport& report);
void append_per_op_tables(std::string& out, const RunReport& report);
void append_problems(std::string& out, const RunReport& report);
void append_loosened_tolerances(std::string& out, const RunReport& report);
void append_skip_reasons(std::string& out, const RunReport& report);
// Summary pieces (markdown_summary.cpp), each bounded in size whatever the run.
void append_interrupted(std::string& out, const RunMetadata& meta);
// op x backend: symbol, worst margin, problem count and skip-reason letters, then the legend.
void append_compact_matrix(std::string& out, const RunReport& report);
// One table row per problem with its repro line, the first `max_rows`; the rest are counted and
// left to the details file.
void append_problem_table(std::string& out, const RunReport& report, std::size_t max_rows,
                          std::string_view details_name);
// The margin distribution of passing checks and the `rows` checks closest to failing.
void append_thinnest_margins(std::string& out, const RunReport& report, std::size_t rows);
// Sensitivity per backend x dtype, then per op x backend x dtype (median / worst).
void append_sensitivity(std::string& out, const RunReport& report);
// The large tier's call times with GB/s and GFLOP/s; nothing when no check was timed.
void append_speed(std::string& out, const RunReport& report);
// The Models section (composite models x backends); nothing when the run has none.
void append_models(std::string& out, const RunReport& report);
// The Training section (training runs x backends); nothing when the run has none.
void append_training(std::string& out, const RunReport& report);
// The stress section (device x mode table, then the failures' messages); nothing when empty.
void append_stress(std::string& out, const std::vector<StressResult>& stress);

}  // namespace gp::md
