// log_matmul_exp's hard regimes tell a stable kernel from the unstable ones. A fake device whose
// math functions err by up to 2 ULP runs the forward in the case dtype three ways: the online
// log-sum-exp ending in log1p(rest) passes; exp of the raw sums A + B (no maximum subtracted)
// overflows or underflows on the overflowing cases and loses the digits of the dominated ones;
// ending in log(1 + rest) rounds 1 + rest, an error that only outputs near zero resolve, which
// the dominated cases have and the overflowing ones (|C| near 100) do not.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;

enum class Formulation { online_log1p, unshifted, log_of_one_plus_rest };

template <typename T>
T log_sum_exp(const std::vector<T>& t, Formulation f) {
  if (f == Formulation::unshifted) {
    T s = 0;
    for (T x : t) s += std::exp(x);
    return std::log(s);
  }
  T m = t[0], rest = 0;
  for (std::size_t p = 1; p < t.size(); ++p) {
    if (t[p] > m) {
      rest = (rest + 1) * std::exp(m - t[p]);
      m = t[p];
    } else {
      rest += std::exp(t[p] - m);
    }
  }
  return m + (f == Formulation::log_of_one_plus_rest ? std::log(1 + rest) : std::log1p(rest));
}

template <typename T>
void forward_in(Formulation f, const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
  const MatmulDims d = matmul_dims(call);
  const HostTensor &a = host(*in[0]), &b = host(*in[1]);
  for (std::int64_t i = 0; i < d.m; ++i) {
    for (std::int64_t j = 0; j < d.n; ++j) {
      std::vector<T> t;
      for (std::int64_t p = 0; p < d.k; ++p)
        t.push_back(static_cast<T>(a.get(i * d.k + p)) + static_cast<T>(b.get(p * d.n + j)));
      host(out).set(i * d.n + j, static_cast<double>(log_sum_exp(t, f)));
    }
  }
}

// glibc's exp, log and log1p are within 2 ULP in float and double.
class TwoUlpProfile : public MathProfile {
 public:
  std::string source() const override { return "2 ULP for every function (test)"; }
  FnBudget budget(MathFn, DType, long double, long double, long double) const override { return {2, 0}; }
};

class TwoUlpBackend : public FakeBackend {
 public:
  TwoUlpBackend() : info_(FakeBackend::info()) { info_.math = &profile_; }
  const DeviceInfo& info() const override { return info_; }

 private:
  TwoUlpProfile profile_;
  DeviceInfo info_;
};

std::string_view forward_verdict(const std::string& case_id, Formulation f) {
  const Case* c = find_case(case_id);
  if (!c) throw Error("missing case " + case_id);
  NiceMock<MockQueue> queue;
  ON_CALL(queue, forward)
      .WillByDefault(Invoke([f](const OpCall& call, std::span<const DeviceBuffer* const> in, DeviceBuffer& out) {
        if (call.dtype == DType::f64)
          forward_in<double>(f, call, in, out);
        else
          forward_in<float>(f, call, in, out);
      }));
  TwoUlpBackend backend;
  const std::uint64_t seed = 7;
  for (const CheckResult& r : check_on_backend(*c, {"fake", &backend, &queue}, prepare_reference(*c, seed), {seed}))
    if (r.direction == Direction::forward) return verdict_name(r.verdict);
  throw Error("no forward check of " + case_id);
}

std::vector<std::string> ids(const std::string& variant) {
  std::vector<std::string> out;
  for (const Case& c : all_cases())
    if (c.decl.op == OpKind::log_matmul_exp && c.decl.variant == variant) out.push_back(c.id);
  if (out.empty()) throw Error("no log_matmul_exp case of variant " + variant);
  return out;
}

TEST(LogMatmulExp, TheOnlineLogSumExpPassesEveryHardRegime) {
  for (const char* variant : {"overflowing", "dominant"})
    for (const std::string& id : ids(variant)) EXPECT_EQ(forward_verdict(id, Formulation::online_log1p), "PASS") << id;
}

TEST(LogMatmulExp, ExpOfTheRawSumsFailsEveryHardRegime) {
  for (const char* variant : {"overflowing", "dominant"})
    for (const std::string& id : ids(variant)) EXPECT_EQ(forward_verdict(id, Formulation::unshifted), "FAIL") << id;
}

TEST(LogMatmulExp, LogOfOnePlusRestFailsTheDominatedRows) {
  for (const std::string& id : ids("dominant"))
    EXPECT_EQ(forward_verdict(id, Formulation::log_of_one_plus_rest), "FAIL") << id;
}

}  // namespace
}  // namespace gp
