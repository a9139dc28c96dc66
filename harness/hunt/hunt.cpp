#include "harness/hunt/hunt.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>

#include "core/enum_table.hpp"
#include "core/error.hpp"
#include "harness/audit/oracle_check.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/inputs.hpp"
#include "harness/hunt/moves.hpp"

namespace gp {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

bool finite(const ref::RefTensor& t) {
  for (auto v : t.v)
    if (!std::isfinite(v)) return false;
  return true;
}

// Whether the dtype represents every element: inputs whose exact output overflows it are outside
// what the op is used for (the forward is infinite there), and a kernel's intermediate overflows
// with it (dy exp(x) as dy times an infinite exp(x)).
bool representable(const ref::RefTensor& t, DType dtype) {
  for (auto v : t.v)
    if (std::isinf(round_to(dtype, static_cast<double>(v)))) return false;
  return true;
}

// The checks' verdict at one set of inputs: the largest margin of the forward and backward
// comparisons (infinite for a device error); invalid where the inputs leave the op's structure
// or its domain (the reference is not finite there), where the exact output overflows the dtype,
// and where a comparison is MISTRUSTED (an intermediate past the arithmetic's range, a reference
// of zeros).
struct Score {
  bool valid = false;
  bool error = false;
  double margin = -kInf;
  std::string check, reason;
};

// A comparison with the reference, which hunt judges by (not a finite-difference check).
bool compared(const CheckResult& check) {
  return check.direction == Direction::forward || check.direction == Direction::backward;
}

// One start of the search: a catalog case and where its walk stands.
struct Start {
  const Case* c = nullptr;
  std::vector<HostTensor> inputs;
  HostTensor cotangent;
  double margin = -kInf;
  int stall = 0;
  std::uint64_t draws = 0;
};

class Search {
 public:
  Search(const DeviceContext& device, const HuntOptions& opts, HuntResult& result)
      : device_(device), opts_(opts), r_(result) {
    run_.seed = opts.seed;
    run_.numerical.backend_probes = 0;  // hunt judges the comparisons with the reference only
  }

  Score evaluate(const Start& s, const std::vector<HostTensor>& inputs) {
    ++r_.evaluations;
    Score score;
    if (!keeps_structure(*s.c, inputs)) {
      ++r_.rejected;
      return score;
    }
    Case c;
    try {
      c = case_with_values(*s.c, GivenValues{inputs, s.cotangent, {}, {}});
    } catch (const UsageError&) {
      ++r_.rejected;
      return score;
    }
    const ReferenceData data = prepare_reference(c, run_.seed);
    bool defined = finite(data.output) && representable(data.output, c.dtype);
    for (const auto& g : data.grads) defined = defined && finite(g);
    if (!defined) {
      ++r_.rejected;
      return score;
    }
    const std::vector<CheckResult> checks = check_on_backend(c, device_, data, run_);
    for (const CheckResult& check : checks)
      if (check.verdict == Verdict::mistrusted && compared(check)) {  // outside the model's range
        ++r_.rejected;
        return score;
      }
    score.valid = true;
    for (const CheckResult& check : checks) {
      const bool error = check.verdict == Verdict::error;
      if (!error && !compared(check)) continue;
      const double margin = error || std::isnan(check.metrics.margin) ? kInf : check.metrics.margin;
      score.error = score.error || error;
      if (margin > score.margin) {
        score.margin = margin;
        score.check = check_label(check);
        score.reason = check.reason;
      }
    }
    return score;
  }

  // Takes the inputs as the start's new position when the margin did not fall; true when it rose.
  bool consider(Start& s, std::vector<HostTensor> inputs, const Score& score) {
    if (!score.valid || !(score.margin >= s.margin)) return false;
    const bool rose = score.margin > s.margin;
    s.margin = score.margin;
    s.inputs = std::move(inputs);
    if (score.margin > r_.worst.margin) {
      r_.worst = {s.c, s.inputs, s.cotangent, score.margin, score.check, score.reason};
      device_error_ = score.error;
    }
    return rose;
  }

  void restart(Start& s) {
    ++r_.restarts;
    s.stall = 0;
    s.margin = -kInf;
    s.inputs = make_inputs(*s.c, opts_.seed + 7919 * ++s.draws);
    consider(s, s.inputs, evaluate(s, s.inputs));
  }

  bool device_error() const { return device_error_; }

 private:
  const DeviceContext& device_;
  const HuntOptions& opts_;
  HuntResult& r_;
  RunContext run_;
  bool device_error_ = false;
};

// The oracle at the worst inputs decides what a large margin means.
void classify(HuntResult& r, const DeviceContext& device, const HuntOptions& opts, bool device_error) {
  if (!r.worst.base) return;
  if (device_error) {
    r.finding = Finding::device_error;
    return;
  }
  const Case c = case_with_values(*r.worst.base, GivenValues{r.worst.inputs, r.worst.cotangent, {}, {}});
  const ReferenceData data = prepare_reference(c, opts.seed);
  OracleOptions o;
  o.all = true;
  const DeviceInfo& info = device.backend->info();
  o.devices = {DeviceMath{info.math, info.may_flush_subnormals}};
  const OracleCaseResult oracle = oracle_check_case(c, data, opts.seed, o);
  r.oracle_ratio = oracle.worst_ratio();
  if (!oracle.error.empty() || r.oracle_ratio > kOracleRatioLimit) {
    r.finding = Finding::reference_hole;
    r.detail = oracle.error.empty()
                   ? "the reference's error is " + std::to_string(r.oracle_ratio) +
                         " of the tightest bound there (limit " + std::to_string(kOracleRatioLimit) + ")"
                   : oracle.error;
  } else if (r.worst.margin > 1) {
    r.finding = Finding::kernel_fail;
  }
}

}  // namespace

std::string HuntGroup::label() const { return std::string(op_name(op)) + " " + std::string(dtype_name(dtype)); }

std::vector<HuntGroup> hunt_groups(const std::vector<const Case*>& cases) {
  std::vector<HuntGroup> out;
  for (const Case* c : cases) {
    if (c->given || c->decl.tier != Tier::small) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const HuntGroup& g) { return g.op == c->decl.op && g.dtype == c->dtype; });
    if (it == out.end()) it = out.insert(out.end(), HuntGroup{c->decl.op, c->dtype, {}});
    it->cases.push_back(c);
  }
  return out;
}

namespace {
constexpr const char* kFindingNames[] = {"none", "FAIL", "ERROR", "reference hole", "unsupported"};
static_assert(std::size(kFindingNames) == static_cast<std::size_t>(Finding::unsupported) + 1);
}  // namespace

const char* finding_name(Finding f) { return enum_row(kFindingNames, f); }

HuntResult hunt_group(const HuntGroup& group, const DeviceContext& device, const HuntOptions& opts) {
  const auto t0 = Clock::now();
  HuntResult r;
  r.group = group.label();
  r.device = device.id;
  Search search(device, opts, r);
  std::vector<Start> starts;
  for (const Case* c : group.cases) {
    if (Support s = device.backend->supports(c->call); !s.ok) {
      r.detail = s.reason;
      continue;
    }
    starts.push_back({c, make_inputs(*c, opts.seed), make_cotangent(*c, opts.seed)});
  }
  if (starts.empty()) {
    r.finding = Finding::unsupported;
    return r;
  }
  r.detail.clear();
  for (Start& s : starts) search.consider(s, s.inputs, search.evaluate(s, s.inputs));
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  auto done = [&] {
    if (r.worst.margin == kInf) return true;  // nothing lies beyond
    return opts.evaluations > 0 ? r.evaluations >= opts.evaluations : elapsed() >= opts.budget_seconds;
  };
  Rng rng = Rng::for_case(opts.seed, r.group, "hunt");
  while (!done()) {
    // Half the moves continue the worst start, half a start at random.
    std::size_t pick = rng.below(starts.size());
    if (rng.below(2) == 0)
      pick = static_cast<std::size_t>(
          std::max_element(starts.begin(), starts.end(),
                           [](const Start& a, const Start& b) { return a.margin < b.margin; }) -
          starts.begin());
    Start& s = starts[pick];
    const auto move = static_cast<Move>(rng.below(kMoveCount));
    std::vector<HostTensor> candidate = apply_move(*s.c, s.inputs, move, rng);
    const Score score = search.evaluate(s, candidate);
    s.stall = search.consider(s, std::move(candidate), score) ? 0 : s.stall + 1;
    if (s.stall >= opts.stall) search.restart(s);
  }
  classify(r, device, opts, search.device_error());
  r.seconds = elapsed();
  return r;
}

}  // namespace gp
