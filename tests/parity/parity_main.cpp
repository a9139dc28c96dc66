// The parity suite: one gtest per (device, subject), registered at run time from the registry.
// `--gp-backend=LIST` picks the devices (default: every provider), `--gp-seed=N` the seed,
// `--gp-op=NAME` every primitive case of one op, `--gp-case=ID` the one subject whose id equals ID
// (gtest filters read '-' and ':' as operators, so ids like `softmax(axis=-1,...)` selected nothing
// through them), `--gp-no-reference-cache` computes every bound instead of reading the reference
// cache (the cache folder's `reference/`, shared by the entries: a case's bounds are the same on
// every device of one math profile, and each entry is a process of its own).
//
// ctest entries (tests/parity/register.cmake turns `--gp-list-ctest`'s table into them): one per
// device and op for the primitive cases, one per device and subject for models and training runs.
// A process per primitive case cost more than its checks (a lavapipe entry's set-up under
// validation about 0.13 s, a PoCL one's 0.08 s, against a few milliseconds of device calls), so an
// op's cases share one process; models take seconds each and keep an entry of their own. A
// composite's reference checks (its bound, the reference's own finite differences) are the same
// whatever the device: they are one entry of their own, `reference/ID` (`--gp-backend=reference`).
// `--gp-check-selection=FILE` replays the registered entries' arguments (one entry a line: name,
// then arguments, tab-separated; tests/parity/check_selection.py writes it from ctest) and proves
// that each selects exactly what its name says and that together they run every (device, subject)
// of the table once. Verdicts map onto gtest: FAIL, ERROR and MISTRUSTED fail the test (a check that
// proves nothing must not pass), SKIP is GTEST_SKIP; a process whose every test skipped prints
// kAllSkipped, which is what ctest reads as a skipped entry.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "backends/registry.hpp"
#include "harness/check/cached_reference_checks.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/run/subjects.hpp"

namespace {

// The pseudo-device of the entries that run a composite's reference checks alone.
constexpr const char* kReferenceDevice = "reference";
// Printed when every test of the process skipped; register.cmake's SKIP_REGULAR_EXPRESSION.
constexpr const char* kAllSkipped = "gp_parity_tests: every selected test skipped";

struct Options {
  std::vector<std::string> backends;
  std::uint64_t seed = 1;
  std::optional<std::string> case_id;  // --gp-case: exact id
  std::optional<std::string> op;       // --gp-op: every primitive case of this op
  bool list_ctest = false;
  bool reference_cache = true;  // !--gp-no-reference-cache
  std::string check_selection;  // --gp-check-selection=FILE
};

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

// Removes our own flags from argv before gtest sees it.
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

std::string suite_name(const std::string& device_id) {
  std::string s = device_id;
  for (char& c : s)
    if (c == ':') c = '_';
  return s;
}

// One backend instance and queue per device for the whole process (tests run serially).
struct Device {
  gp::SelectedDevice selected;
  std::unique_ptr<gp::Backend> backend;
  std::unique_ptr<gp::Queue> queue;
  std::string unusable;
  void open() {
    if (backend || !unusable.empty()) return;
    if (!selected.entry.create) {
      unusable = selected.entry.unavailable;
      return;
    }
    try {
      backend = selected.entry.create();
      queue = backend->create_queue();
    } catch (const std::exception& e) {
      unusable = e.what();
    }
  }
};

void report(const std::vector<gp::CheckResult>& checks);

// FAIL, ERROR and MISTRUSTED fail the running test; a test whose every check SKIPs is skipped.
void report(const std::vector<gp::CheckResult>& checks) {
  int skipped = 0, judged = 0;
  for (const auto& r : checks) {
    std::string where = r.backend + " " + gp::check_label(r);
    switch (r.verdict) {
      case gp::Verdict::pass:
        ++judged;
        break;
      case gp::Verdict::skip:
        ++skipped;
        break;
      default:
        ++judged;
        ADD_FAILURE() << gp::verdict_name(r.verdict) << " " << where << ": " << r.reason << "\n  repro: " << r.repro;
    }
  }
  if (judged == 0 && skipped > 0) GTEST_SKIP() << checks.back().reason;
}

// One subject on one device; on no device (nullptr), the reference's own checks of a model or a
// training run. A primitive case's reference checks are cheap and run in each device's entry.
class SubjectTest : public ::testing::Test {
 public:
  SubjectTest(Device* device, const gp::Subject* s, const gp::RunContext& run) : device_(device), s_(s), run_(run) {}
  void TestBody() override {
    if (!device_) return report(gp::reference_checks(*s_, *s_->prepare(run_), run_));
    device_->open();
    if (!device_->unusable.empty()) GTEST_SKIP() << device_->unusable;
    gp::Support support = s_->supports(*device_->backend);
    if (!support.ok) GTEST_SKIP() << support.reason;
    const auto prepared = s_->prepare(run_);
    std::vector<gp::CheckResult> checks;
    if (!has_reference_entry(*s_)) checks = gp::reference_checks(*s_, *prepared, run_);
    for (auto& r : prepared->check_on({device_->selected.id, device_->backend.get(), device_->queue.get()}, run_))
      checks.push_back(std::move(r));
    report(checks);
  }
  // Models and training runs: their reference checks cost about half of a device's entry.
  static bool has_reference_entry(const gp::Subject& s) { return s.kind() != gp::SubjectKind::primitive; }

 private:
  Device* device_;
  const gp::Subject* s_;
  gp::RunContext run_;
};

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

// One ctest entry: DEVICE/LABEL runs `selector` (--gp-op=OP or --gp-case=ID) on DEVICE.
struct CtestEntry {
  std::string device, label, selector, family, op;
  std::vector<const gp::Subject*> subjects;
  std::string name() const { return device + "/" + label; }
};

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

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    out.push_back(line.substr(start, tab - start));
  out.push_back(line.substr(start));
  return out;
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

}  // namespace

int main(int argc, char** argv) {
  Options opts = take_options(argc, argv);
  const bool reference_only = opts.backends == std::vector<std::string>{kReferenceDevice};
  gp::BackendOptions bopts;
  bopts.vulkan_validation = true;  // the test suite always runs Vulkan under validation
  std::vector<gp::SelectedDevice> selected;
  try {
    if (!reference_only) selected = gp::select_devices(opts.backends, bopts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gp_parity_tests: %s\n", e.what());
    return 2;
  }
  if (opts.list_ctest) {
    // device <TAB> label <TAB> selector <TAB> family <TAB> op
    for (const auto& e : ctest_table(selected))
      std::printf("%s\t%s\t%s\t%s\t%s\n", e.device.c_str(), e.label.c_str(), e.selector.c_str(), e.family.c_str(),
                  e.op.c_str());
    return 0;
  }
  if (!opts.check_selection.empty()) return check_selection(opts.check_selection, selected);
  if (opts.case_id && opts.op) {
    std::fprintf(stderr, "gp_parity_tests: --gp-case and --gp-op select apart; give one\n");
    return 2;
  }
  const std::vector<const gp::Subject*> subjects = subjects_to_register(opts);
  if ((opts.case_id && subjects.size() != 1) || (opts.op && subjects.empty())) {
    std::fprintf(stderr, "gp_parity_tests: %s matches %zu cases\n",
                 (opts.case_id ? "--gp-case=" + *opts.case_id : "--gp-op=" + *opts.op).c_str(), subjects.size());
    return 1;
  }
  static std::vector<std::unique_ptr<Device>> devices;
  for (auto& s : selected) {
    devices.push_back(std::make_unique<Device>());
    devices.back()->selected = s;
  }
  ::testing::InitGoogleTest(&argc, argv);
  static std::unique_ptr<gp::ReferenceCache> cache;
  if (opts.reference_cache)
    cache =
        std::make_unique<gp::ReferenceCache>(gp::reference_cache_dir(bopts.cache_dir), gp::kDefaultReferenceCacheCap);
  const gp::RunContext run{opts.seed, {}, cache.get()};
  int registered = 0;
  auto add = [&](const std::string& suite, Device* dev, const gp::Subject* s) {
    ++registered;
    ::testing::RegisterTest(suite.c_str(), s->id().c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [=]() -> ::testing::Test* { return new SubjectTest(dev, s, run); });
  };
  if (reference_only || opts.backends.empty())
    for (const gp::Subject* s : subjects)
      if (SubjectTest::has_reference_entry(*s)) add(kReferenceDevice, nullptr, s);
  for (auto& d : devices)
    for (const gp::Subject* s : subjects) add(suite_name(d->selected.id), d.get(), s);
  const int status = RUN_ALL_TESTS();
  // An entry that names its subjects runs them all: a --gtest_filter that deselects some must not
  // pass as a smaller run.
  const auto& unit = *::testing::UnitTest::GetInstance();
  const int ran = unit.test_to_run_count();
  if ((opts.case_id || opts.op) && ran != registered) {
    std::fprintf(stderr, "gp_parity_tests: %s ran %d tests, not the %d registered\n",
                 (opts.case_id ? "--gp-case=" + *opts.case_id : "--gp-op=" + *opts.op).c_str(), ran, registered);
    return 1;
  }
  if (ran > 0 && unit.skipped_test_count() == ran) std::printf("%s\n", kAllSkipped);
  return status;
}
