// The OpenCL and Vulkan backends under their other kernel modes, driven by the case registry:
// one representative case per op and dtype (the first the registry holds) through the parity
// checks of harness/check/checker.hpp, on the first device of each backend. The parity suite runs every
// case with each device's default mode (generic kernels and pipelines on CPU devices); CMake runs
// this program only with GP_CL_GENERIC=0 and GP_VK_SPECIALIZE=1, the per-op kernels and pipelines
// a GPU gets by default. There is no second case list and no second tolerance here.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "backends/registry.hpp"
#include "cases/registry.hpp"
#include "harness/check/checker.hpp"

namespace gp {
namespace {

// One case per (op, dtype): the registry's first, so the sample follows the catalog.
std::vector<const Case*> representative_cases() {
  std::map<std::pair<OpKind, DType>, const Case*> first;
  for (const Case& c : all_cases()) first.try_emplace({c.decl.op, c.dtype}, &c);
  std::vector<const Case*> out;
  for (const auto& [key, c] : first) out.push_back(c);
  return out;
}

class RegistrySample : public ::testing::TestWithParam<std::string> {};

TEST_P(RegistrySample, EveryOpAndDtypePasses) {
  BackendOptions opts;
  opts.vulkan_validation = true;  // any validation message fails the case (check_on_backend)
  std::vector<SelectedDevice> devices = select_devices({GetParam()}, opts);
  if (devices.empty() || !devices.front().entry.create)
    GTEST_SKIP() << GetParam()
                 << " unavailable: " << (devices.empty() ? "no device" : devices.front().entry.unavailable);
  std::unique_ptr<Backend> backend = devices.front().entry.create();
  std::unique_ptr<Queue> queue = backend->create_queue();
  int ran = 0;
  for (const Case* c : representative_cases()) {
    SCOPED_TRACE(c->id);
    if (!backend->supports(c->call).ok) continue;
    const ReferenceData data = prepare_reference(*c, 1);
    for (const CheckResult& r : check_on_backend(*c, {devices.front().id, &*backend, &*queue}, data, {1})) {
      EXPECT_NE(r.verdict, Verdict::fail) << direction_label(r.direction, r.input) << ": " << r.reason;
      EXPECT_NE(r.verdict, Verdict::error) << r.reason;
    }
    ++ran;
  }
  EXPECT_GE(ran, static_cast<int>(all_ops().size())) << "fewer cases ran than the catalog has ops";
}

std::vector<std::string> gpu_api_backends() {
  std::vector<std::string> names;
  for (const auto& p : backend_providers())
    if (p.name != "cpu" && !p.load) names.push_back(p.name);  // a plugin needs its library: tests/plugin
  return names;
}

INSTANTIATE_TEST_SUITE_P(Backends, RegistrySample, ::testing::ValuesIn(gpu_api_backends()),
                         [](const auto& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RegistrySample);

}  // namespace
}  // namespace gp
