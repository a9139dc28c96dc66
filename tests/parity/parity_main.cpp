// The parity suite: one gtest per (device, subject), registered at run time from the registry.
// `--gp-backend=LIST` picks the devices (default: every provider), `--gp-seed=N` the seed,
// `--gp-op=NAME` every primitive case of one op, `--gp-case=ID` the one subject whose id equals ID
// (gtest filters read '-' and ':' as operators, so ids like `softmax(axis=-1,...)` selected nothing
// through them), `--gp-no-reference-cache` computes every bound instead of reading the reference
// cache (the cache folder's `reference/`, shared by the entries: a case's bounds are the same on
// every device of one math profile, and each entry is a process of its own).
//
// ctest entries (`--gp-list-ctest`, selection.hpp): one per device and op for the primitive cases,
// one per device and subject for models and training runs. A process per primitive case cost more
// than its checks (a lavapipe entry's set-up under validation about 0.13 s, a PoCL one's 0.08 s,
// against a few milliseconds of device calls), so an op's cases share one process; models take
// seconds each and keep an entry of their own. A composite's reference checks (its bound, the
// reference's own finite differences) are the same whatever the device: they are one entry of their
// own, `reference/ID` (`--gp-backend=reference`). Verdicts map onto gtest: FAIL, ERROR and
// MISTRUSTED fail the test (a check that proves nothing must not pass), SKIP is GTEST_SKIP; a
// process whose every test skipped prints kAllSkipped, which is what ctest reads as a skipped entry.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "backends/registry.hpp"
#include "core/memory_size.hpp"
#include "harness/check/cached_reference_checks.hpp"
#include "harness/check/open_device.hpp"
#include "harness/check/reference_cache.hpp"
#include "harness/run/subjects.hpp"
#include "selection.hpp"

namespace {

using namespace gp_parity;

// Printed when every test of the process skipped; register.cmake's SKIP_REGULAR_EXPRESSION.
constexpr const char* kAllSkipped = "gp_parity_tests: every selected test skipped";

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
    gp::OpenedDevice opened = gp::open_device(selected);
    if (!opened.backend) {
      unusable = opened.reason;
      return;
    }
    try {
      queue = opened.backend->create_queue();
      backend = std::move(opened.backend);
    } catch (const std::exception& e) {
      unusable = std::string("could not create a queue: ") + e.what();
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

 private:
  Device* device_;
  const gp::Subject* s_;
  gp::RunContext run_;
};

}  // namespace

int main(int argc, char** argv) {
  gp::keep_large_blocks_in_heap();  // as the gradparity command
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
      if (has_reference_entry(*s)) add(kReferenceDevice, nullptr, s);
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
