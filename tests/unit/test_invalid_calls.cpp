// Calls the catalog refuses (docs/invalid-calls.md): the table covers every family, the catalog's
// own calls are all valid, the built-in cpu backend refuses each invalid one, and the refusal
// check tells a backend that refuses from one that accepts or fails.
#include <map>

#include "backends/registry.hpp"
#include "cases/invalid_calls.hpp"
#include "core/error.hpp"
#include "harness/check/invalid_call_subject.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

TEST(InvalidCalls, EveryFamilyHasAtLeastThreeAndEachIsRefusedByTheCatalog) {
  std::map<OpFamily, int> per_family;
  for (const InvalidCall& c : invalid_calls()) {
    ++per_family[op_family(c.c.decl.op)];
    EXPECT_EQ(call_problem(c.c.call), c.problem) << c.c.id;
    EXPECT_FALSE(c.problem.empty()) << c.c.id;
    EXPECT_NE(c.c.id.find("(invalid,"), std::string::npos) << c.c.id;
  }
  for (OpKind op : all_ops()) EXPECT_GE(per_family[op_family(op)], 3) << family_name(op_family(op));
}

// A backend that refused a valid call would SKIP it silently: every call of the catalog, small
// and large, is one the shape rule accepts as it stands.
TEST(InvalidCalls, EveryCatalogCallIsValid) {
  for (const auto* cases : {&all_cases(), &large_cases()})
    for (const Case& c : *cases) EXPECT_EQ(call_problem(c.call), std::nullopt) << c.id;
}

// Every built-in device of this machine (cpu; PoCL and lavapipe in CI).
TEST(InvalidCalls, EveryBuiltInBackendRefusesEachNamingTheProblem) {
  int devices = 0;
  for (const SelectedDevice& d : select_devices({}, {})) {
    if (!d.entry.create) continue;
    const std::unique_ptr<Backend> backend = d.entry.create();
    if (!backend) continue;
    ++devices;
    for (const InvalidCall& c : invalid_calls()) {
      const Support s = backend->supports(c.c.call);
      EXPECT_FALSE(s.ok) << d.id << " " << c.c.id;
      EXPECT_EQ(s.reason, "invalid call: " + c.problem) << d.id << " " << c.c.id;
    }
  }
  EXPECT_GE(devices, 1);
}

class ChosenSupport : public testing::FakeBackend {
 public:
  explicit ChosenSupport(std::function<Support()> answer) : answer_(std::move(answer)) {}
  Support supports(const OpCall&) const override { return answer_(); }

 private:
  std::function<Support()> answer_;
};

CheckResult refusal_on(const Backend& backend) {
  const InvalidCall& c = invalid_calls().front();
  return check_refusal(c.c, c.problem, DeviceContext{"fake", const_cast<Backend*>(&backend), nullptr}, 1);
}

TEST(InvalidCalls, TheRefusalCheckPassesARefusalAndFailsAnAcceptance) {
  const CheckResult refused = refusal_on(ChosenSupport([] { return Support::no("shape 5x4 is not 4x5"); }));
  EXPECT_EQ(refused.verdict, Verdict::pass);
  EXPECT_EQ(refused.direction, Direction::refusal);
  EXPECT_EQ(refused.reason, "refused: shape 5x4 is not 4x5");

  const CheckResult accepted = refusal_on(ChosenSupport([] { return Support::yes(); }));
  EXPECT_EQ(accepted.verdict, Verdict::fail);
  EXPECT_NE(accepted.reason.find("supports() accepted a call the catalog refuses (" + invalid_calls().front().problem),
            std::string::npos)
      << accepted.reason;

  const CheckResult failed =
      refusal_on(ChosenSupport([]() -> Support { throw DeviceError("supports", "injected", "case"); }));
  EXPECT_EQ(failed.verdict, Verdict::error);
  EXPECT_EQ(failed.reason_kind, ReasonKind::device_error);
}

}  // namespace
}  // namespace gp
