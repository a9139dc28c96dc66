// The parity suite: one gtest per (device, case), registered at run time from the case
// registry. `--gp-backend=LIST` picks the devices (default: every provider), `--gp-seed=N` the
// seed, `--gp-list-ctest` prints the table that tests/parity/register.cmake turns into ctest
// entries with labels per backend, family and op. Verdicts map onto gtest: FAIL, ERROR and
// MISTRUSTED fail the test (a check that proves nothing must not pass), SKIP is GTEST_SKIP.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "backends/registry.hpp"
#include "cases/registry.hpp"
#include "harness/checker.hpp"

namespace {

struct Options {
  std::vector<std::string> backends;
  std::uint64_t seed = 1;
  bool list_ctest = false;
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
    else if (a == "--gp-list-ctest")
      o.list_ctest = true;
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

class ParityTest : public ::testing::Test {
 public:
  ParityTest(Device* device, const gp::Case* c, std::uint64_t seed) : device_(device), case_(c), seed_(seed) {}
  void TestBody() override {
    device_->open();
    if (!device_->unusable.empty()) GTEST_SKIP() << device_->unusable;
    gp::Support s = device_->backend->supports(case_->call);
    if (!s.ok) GTEST_SKIP() << s.reason;
    gp::ReferenceData data = gp::prepare_reference(*case_, seed_);
    auto checks = gp::check_reference_numerics(*case_, data, seed_);
    for (auto& r : gp::check_on_backend(*case_, device_->selected.id, *device_->backend, *device_->queue, data, seed_))
      checks.push_back(std::move(r));
    int skipped = 0, judged = 0;
    for (const auto& r : checks) {
      std::string where = r.backend + " " + gp::direction_label(r.direction, r.input);
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

 private:
  Device* device_;
  const gp::Case* case_;
  std::uint64_t seed_;
};

}  // namespace

int main(int argc, char** argv) {
  Options opts = take_options(argc, argv);
  gp::BackendOptions bopts;
  bopts.vulkan_validation = true;  // the test suite always runs Vulkan under validation
  std::vector<gp::SelectedDevice> selected;
  try {
    selected = gp::select_devices(opts.backends, bopts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gp_parity_tests: %s\n", e.what());
    return 2;
  }
  if (opts.list_ctest) {
    // device <TAB> case id <TAB> family <TAB> op
    for (const auto& d : selected)
      for (const auto& c : gp::all_cases())
        std::printf("%s\t%s\t%s\t%s\n", d.id.c_str(), c.id.c_str(), c.family().c_str(),
                    std::string(gp::op_name(c.decl.op)).c_str());
    return 0;
  }
  static std::vector<std::unique_ptr<Device>> devices;
  for (auto& s : selected) {
    devices.push_back(std::make_unique<Device>());
    devices.back()->selected = s;
  }
  ::testing::InitGoogleTest(&argc, argv);
  for (auto& d : devices) {
    for (const auto& c : gp::all_cases()) {
      Device* dev = d.get();
      const gp::Case* cp = &c;
      std::uint64_t seed = opts.seed;
      ::testing::RegisterTest(suite_name(d->selected.id).c_str(), c.id.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                              [=]() -> ::testing::Test* { return new ParityTest(dev, cp, seed); });
    }
  }
  return RUN_ALL_TESTS();
}
