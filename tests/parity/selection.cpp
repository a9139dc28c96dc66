// See selection.hpp.
#include "selection.hpp"

#include <cstdio>
#include <fstream>
#include <map>

namespace gp_parity {

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    out.push_back(line.substr(start, tab - start));
  out.push_back(line.substr(start));
  return out;
}

}  // namespace

Options take_options(int& argc, char** argv) {
  Options o;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--gp-backend=", 0) == 0)
      o.backends = split(a.substr(13));
    else if (a.rfind("--gp-seed=", 0) == 0)
      o.seed = std::stoull(a.substr(10));
    else if (a.rfind("--gp-case=", 0) == 0)
      o.case_id = a.substr(10);
    else if (a.rfind("--gp-op=", 0) == 0)
      o.op = a.substr(8);
    else if (a == "--gp-no-reference-cache")
      o.reference_cache = false;
    else if (a == "--gp-list-ctest")
      o.list_ctest = true;
    else if (a.rfind("--gp-check-selection=", 0) == 0)
      o.check_selection = a.substr(21);
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  return o;
}

// The subjects a run registers: every one, the one whose id equals --gp-case, or the primitive
// cases of the op --gp-op names.
std::vector<const gp::Subject*> subjects_to_register(const Options& o) {
  std::vector<const gp::Subject*> out;
  for (const auto& s : gp::all_subjects()) {
    if (o.case_id && s->id() != *o.case_id) continue;
    if (o.op && (s->kind() != gp::SubjectKind::primitive || s->op_name() != *o.op)) continue;
    out.push_back(s.get());
  }
  return out;
}

// The entries of the devices this process selected, in the order ctest runs them: primitives per
// op, then the composites' reference entries, then the composites per device.
std::vector<CtestEntry> ctest_table(const std::vector<gp::SelectedDevice>& devices) {
  std::vector<std::string> ops;  // in registry order
  std::map<std::string, std::vector<const gp::Subject*>> cases_of_op;
  std::vector<const gp::Subject*> composites;
  for (const auto& s : gp::all_subjects()) {
    if (s->kind() != gp::SubjectKind::primitive) {
      composites.push_back(s.get());
      continue;
    }
    auto& cases = cases_of_op[std::string(s->op_name())];
    if (cases.empty()) ops.emplace_back(s->op_name());
    cases.push_back(s.get());
  }
  std::vector<CtestEntry> table;
  for (const auto& d : devices)
    for (const auto& op : ops) {
      const auto& cases = cases_of_op[op];
      table.push_back({d.id, op, "--gp-op=" + op, cases.front()->primitive_case()->family(), op, cases});
    }
  auto one = [&](const std::string& device, const gp::Subject* s) {
    table.push_back({device, s->id(), "--gp-case=" + s->id(), "model", std::string(s->op_name()), {s}});
  };
  for (const gp::Subject* s : composites) one(kReferenceDevice, s);
  for (const auto& d : devices)
    for (const gp::Subject* s : composites) one(d.id, s);
  return table;
}

// Replays each registered entry's arguments through the same parsing and selection as a real run.
// An entry passes when nothing is left over for gtest (a --gtest_filter would be) and it selects
// one device and exactly the subjects of the table's entry of its name; the table passes when
// every one of its entries was registered once.
int check_selection(const std::string& file, const std::vector<gp::SelectedDevice>& devices) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "gp_parity_tests: cannot read %s\n", file.c_str());
    return 2;
  }
  std::map<std::string, CtestEntry> expected;
  std::map<std::string, int> registered;
  for (auto& e : ctest_table(devices)) expected.emplace(e.name(), std::move(e));
  std::int64_t entries = 0, wrong = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::vector<std::string> args = split_tabs(line);
    const std::string name = args[0];
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    int argc = static_cast<int>(argv.size());
    Options o = take_options(argc, argv.data());
    const auto subjects = subjects_to_register(o);
    const auto it = expected.find(name);
    const bool ok = it != expected.end() && argc == 1 && o.backends == std::vector<std::string>{it->second.device} &&
                    subjects == it->second.subjects;
    ++entries;
    ++registered[name];
    if (!ok) {
      ++wrong;
      std::fprintf(stderr, "%s: selects %zu subject(s) on %zu device(s), %d argument(s) left for gtest%s\n",
                   name.c_str(), subjects.size(), o.backends.size(), argc - 1,
                   it == expected.end() ? "; no such entry in the table" : "");
    }
  }
  for (const auto& [name, e] : expected)
    if (registered[name] != 1) {
      ++wrong;
      std::fprintf(stderr, "%s: registered %d times, not once\n", name.c_str(), registered[name]);
    }
  std::printf(
      "%lld ctest entries replayed, %lld select other than exactly their own subjects or are not registered once\n",
      static_cast<long long>(entries), static_cast<long long>(wrong));
  return wrong == 0 && entries > 0 ? 0 : 1;
}

}  // namespace gp_parity
