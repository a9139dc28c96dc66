// What CI's ThreadSanitizer stage watches (ci/sanitizers.sh tsan-ci): a parity run whose work
// items run on four workers at once, and the stress engine in every mode on every device this
// machine has. Both go through the same functions as `gradparity run -j 4` and a stress child
// (cli/stress_child.cpp); this program links the engine alone, so that the TSan build compiles
// neither the reports nor the command line (tests/CMakeLists.txt). Under a plain build they are
// ordinary tests: every check passes, every stress run is bit-identical to its serial baseline.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "harness/audit/stress.hpp"
#include "harness/run/runner.hpp"

namespace gp {
namespace {

// The devices of these backends that this build and machine have (every built-in one for an
// empty list).
std::vector<SelectedDevice> devices_of(const std::vector<std::string>& backends) {
  std::vector<std::string> built;
  for (const std::string& b : backends)
    if (std::ranges::count(backend_names(), b)) built.push_back(b);
  std::vector<SelectedDevice> out;
  if (built.empty() && !backends.empty()) return out;
  for (SelectedDevice& d : select_devices(built, {}))
    if (d.entry.unavailable.empty()) out.push_back(std::move(d));
  return out;
}

// Models whose devices are work items of their own (harness/run/work_items.hpp): the cpu and the
// OpenCL device of one model run on different workers at once and share the model's reference
// data and its memo of node bounds. Under TSan this test reports a data race with NodeBoundMemo's
// lock taken out.
TEST(Concurrency, AParityRunOnFourWorkersSharesEachModelsReferenceData) {
  Selection sel;
  sel.ops = {"mlp", "train"};
  sel.dtypes = {"f32"};
  sel.filter = "layers=1|model=kan";
  const std::vector<const Subject*> subjects = select_subjects(sel);
  ASSERT_GE(subjects.size(), 4u);
  const std::vector<SelectedDevice> devices = devices_of({"cpu", "opencl"});
  ASSERT_FALSE(devices.empty());
  RunOptions opts;
  opts.jobs = 4;
  const RunReport report = run_parity(subjects, devices, opts);
  int pass = 0;
  for (const CheckResult& c : report.checks) {
    EXPECT_NE(c.verdict, Verdict::fail) << c.case_id << " on " << c.backend << ": " << c.reason;
    EXPECT_NE(c.verdict, Verdict::error) << c.case_id << " on " << c.backend << ": " << c.reason;
    pass += c.verdict == Verdict::pass;
  }
  EXPECT_GT(pass, 20 * static_cast<int>(devices.size()));
}

// Four threads on one device in each mode (shared instance, an instance per thread, churn of
// queues, buffers and instances), primitives whose kernels differ in kind: elementwise, binary,
// row-wise, matmul, reduction. Under TSan this test reports a data race with the OpenCL buffer
// pool's lock taken out.
TEST(Concurrency, TheStressEngineIsBitIdenticalOnEveryDeviceInEveryMode) {
  Selection sel;
  sel.ops = {"exp", "add", "softmax", "matmul", "sum"};
  sel.dtypes = {"f32"};
  sel.filter = "^(?!.*64x128)";  // the large softmax row: minutes under TSan, nothing new
  const std::vector<const Subject*> subjects = select_subjects(sel);
  ASSERT_GE(subjects.size(), 5u);
  StressOptions opts;
  opts.threads = 4;
  opts.iterations = 4;
  const std::vector<SelectedDevice> devices = devices_of({});
  ASSERT_FALSE(devices.empty());
  for (const SelectedDevice& device : devices) {
    std::cout << "stress: " << device.id << " (" << device.entry.info.name << "), every mode\n";
    for (StressMode mode : kAllStressModes) {
      const StressResult r = run_stress_mode(device, subjects, mode, opts);
      EXPECT_FALSE(r.failed()) << device.id << ", " << stress_mode_name(mode) << ": " << r.mismatches << " mismatches, "
                               << r.errors << " errors, " << (r.notes.empty() ? "" : r.notes.front());
      EXPECT_EQ(r.calls, 16) << device.id << ", " << stress_mode_name(mode);
    }
  }
}

}  // namespace
}  // namespace gp
