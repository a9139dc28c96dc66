// The parity program's selection: its own options (taken out of argv before gtest sees it), the
// subjects an invocation registers, and the table of ctest entries (`--gp-list-ctest`, which
// tests/parity/register.cmake turns into entries) with the proof that the registered entries
// select what their names say and cover the table once (`--gp-check-selection`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "harness/run/subjects.hpp"

namespace gp_parity {

// The pseudo-device of the entries that run a composite's reference checks alone.
inline constexpr const char* kReferenceDevice = "reference";

struct Options {
  std::vector<std::string> backends;
  std::uint64_t seed = 1;
  std::optional<std::string> case_id;  // --gp-case: exact id
  std::optional<std::string> op;       // --gp-op: every primitive case of this op
  bool list_ctest = false;
  bool reference_cache = true;  // !--gp-no-reference-cache
  std::string check_selection;  // --gp-check-selection=FILE
};

// Removes the program's own flags from argv before gtest sees it.
Options take_options(int& argc, char** argv);

// Models and training runs: their reference checks are an entry of their own (they cost about
// half of a device's entry), not part of each device's.
inline bool has_reference_entry(const gp::Subject& s) { return s.kind() != gp::SubjectKind::primitive; }

// Every subject, the one whose id equals --gp-case, or the primitive cases of the op --gp-op names.
std::vector<const gp::Subject*> subjects_to_register(const Options& o);

// One ctest entry: DEVICE/LABEL runs `selector` (--gp-op=OP or --gp-case=ID) on DEVICE.
struct CtestEntry {
  std::string device, label, selector, family, op;
  std::vector<const gp::Subject*> subjects;
  std::string name() const { return device + "/" + label; }
};

// The entries of these devices, in the order ctest runs them: primitives per op, then the
// composites' reference entries, then the composites per device.
std::vector<CtestEntry> ctest_table(const std::vector<gp::SelectedDevice>& devices);

// Replays the registered entries in `file` (one a line: name, then arguments, tab-separated) and
// returns the exit status: 0 when each selects exactly its table entry's subjects on its device
// with nothing left for gtest, and every table entry is registered once.
int check_selection(const std::string& file, const std::vector<gp::SelectedDevice>& devices);

}  // namespace gp_parity
