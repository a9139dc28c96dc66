// The parity suite: one gtest per (device, case), registered at run time from the case
// registry. `--gp-backend=LIST` picks the devices (default: every provider), `--gp-seed=N` the
// seed, `--gp-case=ID` the one case whose id equals ID (ctest entries use it: gtest filters read
// '-' and ':' as operators, so ids like `softmax(axis=-1,...)` selected nothing through them),
// `--gp-no-reference-cache` computes every bound instead of reading the reference cache (the
// cache folder's `reference/`, shared by the entries: a case's bounds are the same on every device
// of one math profile, and each entry is a process of its own), `--gp-list-ctest` prints the table that
// tests/parity/register.cmake turns into ctest entries, and `--gp-check-selection=FILE` replays the registered entries'
// arguments (one entry a line: name, then arguments, tab-separated; tests/parity/check_selection.py writes it from
// ctest) and proves that each selects exactly its own case on its own device. A composite's reference checks (its
// bound, the reference's own finite differences) are the same whatever the device: they are one entry of their own,
// `reference/ID` (`--gp-backend=reference`), rather than a part of every device's entry, which took them about half of
// each entry's time. Verdicts map onto gtest: FAIL, ERROR and MISTRUSTED fail the test (a check that proves nothing
// must not pass), SKIP is GTEST_SKIP.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
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

struct Options {
  std::vector<std::string> backends;
  std::uint64_t seed = 1;
  std::optional<std::string> case_id;  // --gp-case: exact id
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

// The subjects a run registers: every one, or exactly the one whose id equals --gp-case.
std::vector<const gp::Subject*> subjects_to_register(const Options& o) {
  std::vector<const gp::Subject*> out;
  for (const auto& s : gp::all_subjects())
    if (!o.case_id || s->id() == *o.case_id) out.push_back(s.get());
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

// Replays each registered entry's arguments through the same parsing and case selection as a
// real run. An entry passes when nothing is left over for gtest (a --gtest_filter would be) and
// it selects one device and one case, those its name says.
int check_selection(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "gp_parity_tests: cannot read %s\n", file.c_str());
    return 2;
  }
  std::int64_t entries = 0, wrong = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::vector<std::string> args = split_tabs(line);
    const std::string name = args[0];
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    int argc = static_cast<int>(argv.size());
    Options o = take_options(argc, argv.data());
    const std::size_t slash = name.find('/');
    const std::string device = name.substr(0, slash), case_id = name.substr(slash + 1);
    const auto subjects = subjects_to_register(o);
    const bool one = subjects.size() == 1 && subjects[0]->id() == case_id;
    const bool ok = argc == 1 && o.backends == std::vector<std::string>{device} && one &&
                    (device != kReferenceDevice || SubjectTest::has_reference_entry(*subjects[0]));
    ++entries;
    if (!ok) {
      ++wrong;
      std::fprintf(stderr, "%s: selects %zu case(s) on %zu device(s), %d argument(s) left for gtest\n", name.c_str(),
                   subjects.size(), o.backends.size(), argc - 1);
    }
  }
  std::printf("%lld ctest entries replayed, %lld select other than exactly their own case\n",
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
    // device <TAB> case id <TAB> family <TAB> op
    auto family = [](const gp::Subject& s) {
      return s.primitive_case() ? s.primitive_case()->family() : std::string("model");
    };
    auto print = [&](const std::string& device, const gp::Subject& s) {
      std::printf("%s\t%s\t%s\t%s\n", device.c_str(), s.id().c_str(), family(s).c_str(),
                  std::string(s.op_name()).c_str());
    };
    for (const auto& d : selected)
      for (const auto& s : gp::all_subjects())
        if (s->kind() == gp::SubjectKind::primitive) print(d.id, *s);
    for (const auto& s : gp::all_subjects())
      if (SubjectTest::has_reference_entry(*s)) print(kReferenceDevice, *s);
    for (const auto& d : selected)
      for (const auto& s : gp::all_subjects())
        if (s->kind() != gp::SubjectKind::primitive) print(d.id, *s);
    return 0;
  }
  if (!opts.check_selection.empty()) return check_selection(opts.check_selection);
  const std::vector<const gp::Subject*> subjects = subjects_to_register(opts);
  if (opts.case_id && subjects.size() != 1) {
    std::fprintf(stderr, "gp_parity_tests: --gp-case=%s matches %zu cases, not exactly one\n", opts.case_id->c_str(),
                 subjects.size());
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
  auto add = [&](const std::string& suite, Device* dev, const gp::Subject* s) {
    ::testing::RegisterTest(suite.c_str(), s->id().c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [=]() -> ::testing::Test* { return new SubjectTest(dev, s, run); });
  };
  if (reference_only || opts.backends.empty())
    for (const gp::Subject* s : subjects)
      if (SubjectTest::has_reference_entry(*s)) add(kReferenceDevice, nullptr, s);
  for (auto& d : devices)
    for (const gp::Subject* s : subjects) add(suite_name(d->selected.id), d.get(), s);
  const int status = RUN_ALL_TESTS();
  // A ctest entry names one case on one device: anything else (a --gtest_filter that deselects
  // it, a device list of two) must not pass as an empty run.
  const int ran = ::testing::UnitTest::GetInstance()->test_to_run_count();
  if (opts.case_id && ran != 1) {
    std::fprintf(stderr, "gp_parity_tests: --gp-case=%s ran %d tests, not exactly one\n", opts.case_id->c_str(), ran);
    return 1;
  }
  return status;
}
