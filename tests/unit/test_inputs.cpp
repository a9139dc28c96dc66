// harness/inputs: every input of every registry case, at three seeds, lies in its declared
// domain (ranges, distances from kinks and poles, gaps between row maxima, integral class
// indices), and the bytes are a pure function of (case, seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "cases/registry.hpp"
#include "harness/check/inputs.hpp"

namespace gp {
namespace {

constexpr std::uint64_t kSeeds[] = {1, 42, 0x9E3779B97F4A7C15ULL};

// Reports the first few violations through gtest and counts all of them.
class Violations {
 public:
  template <typename... Parts>
  void add(const Case& c, int input, std::int64_t i, const Parts&... parts) {
    if (++count_ > 10) return;
    std::ostringstream s;
    s.precision(17);
    s << c.id << " seed " << seed << " input " << input << " [" << i << "]: ";
    ((s << parts), ...);
    ADD_FAILURE() << s.str();
  }
  int count() const { return count_; }
  std::uint64_t seed = 0;  // the seed being checked, for the message

 private:
  int count_ = 0;
};

void check_pointwise(const Case& c, int k, const HostTensor& t, Violations& bad) {
  const Domain& d = c.decl.inputs[static_cast<std::size_t>(k)].domain;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double x = t.get(i);
    if (!std::isfinite(x)) bad.add(c, k, i, "non-finite ", x);
    if (x < d.lo || x > d.hi) bad.add(c, k, i, x, " outside [", d.lo, ", ", d.hi, "]");
    if (std::fabs(x) < d.min_abs) bad.add(c, k, i, "|", x, "| below min_abs ", d.min_abs);
    if (d.kind == Domain::Kind::half_integer_free && std::fabs(x - (std::floor(x) + 0.5)) < d.margin)
      bad.add(c, k, i, x, " within ", d.margin, " of a half-integer");
    if (d.kind == Domain::Kind::gate && (std::fabs(x) < d.margin || std::fabs(std::fabs(x) - 1) < d.margin))
      bad.add(c, k, i, x, " within ", d.margin, " of a gate kink (0, +-1)");
  }
}

// y stays `margin` away from every x element it meets under broadcasting. Same-shape pairs are
// balanced so that each input wins somewhere (else one gradient is all zeros): y[0] may then be
// moved to x[0] +- (margin + 0.5), past the sampling range (not an edge of maximum/minimum).
void check_apart(const Case& c, int k, const std::vector<HostTensor>& in, Violations& bad) {
  const Domain& d = c.decl.inputs[static_cast<std::size_t>(k)].domain;
  const HostTensor &x = in.at(0), &y = in[static_cast<std::size_t>(k)];
  for (std::int64_t j = 0; j < y.numel(); ++j) {
    const double slack = j == 0 ? d.margin + 0.5 + ulp_of(y.dtype(), d.hi) : 0.0;
    if (y.get(j) < d.lo - slack || y.get(j) > d.hi + slack)
      bad.add(c, k, j, y.get(j), " outside [", d.lo, ", ", d.hi, "] (+-", slack, ")");
  }
  const BroadcastPlan plan = broadcast_plan(x.shape(), y.shape());
  for (std::int64_t i = 0; i < plan.numel; ++i) {
    const double a = x.get(plan.a_index(i)), b = y.get(plan.b_index(i));
    if (std::fabs(a - b) < d.margin) bad.add(c, k, plan.b_index(i), b, " is within ", d.margin, " of input0 ", a);
  }
  if (x.shape() == y.shape() && y.numel() >= 2) {
    bool y_above = false, y_below = false;
    for (std::int64_t i = 0; i < y.numel(); ++i) (y.get(i) > x.get(i) ? y_above : y_below) = true;
    if (!(y_above && y_below)) bad.add(c, k, 0, "one input wins everywhere: a gradient would be all zeros");
  }
}

// A kink at zero inside the range (relu, abs, ste_round): more than one element has both signs,
// so both branches are checked; a single element is positive, the branch with a slope.
void check_sign_balance(const Case& c, int k, const HostTensor& t, Violations& bad) {
  const Domain& d = c.decl.inputs[static_cast<std::size_t>(k)].domain;
  if (!(d.min_abs > 0 && d.lo < 0 && d.hi > 0)) return;
  bool pos = false, neg = false;
  for (std::int64_t i = 0; i < t.numel(); ++i) (t.get(i) > 0 ? pos : neg) = true;
  if (t.numel() == 1 && !pos) bad.add(c, k, 0, "a single element of a kinked op must be positive");
  if (t.numel() > 1 && !(pos && neg)) bad.add(c, k, 0, "all ", t.numel(), " elements on one side of the kink");
}

// The lifted maximum may exceed hi (fd_direction does not treat it as an edge); the others
// stay in range, and every row's maximum is at least `margin` above its runner-up.
void check_row_maxima(const Case& c, int k, const HostTensor& t, Violations& bad) {
  const Domain& d = c.decl.inputs[static_cast<std::size_t>(k)].domain;
  const AxisSplit s = split_at_axis(t.shape(), c.decl.attrs.axis);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t in = 0; in < s.inner; ++in) {
      auto at = [&](std::int64_t j) { return (o * s.n + j) * s.inner + in; };
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < s.n; ++j)
        if (t.get(at(j)) > t.get(at(best))) best = j;
      double second = -INFINITY;
      for (std::int64_t j = 0; j < s.n; ++j) {
        const double v = t.get(at(j));
        if (v < d.lo) bad.add(c, k, at(j), v, " below lo ", d.lo);
        if (j == best) continue;
        second = std::max(second, v);
        if (v > d.hi) bad.add(c, k, at(j), v, " above hi ", d.hi, " and not the row maximum");
      }
      const double top = t.get(at(best));
      if (s.n > 1 && top - second < d.margin)
        bad.add(c, k, at(best), "row maximum ", top, " is only ", top - second, " above the runner-up ", second,
                " (margin ", d.margin, ")");
      if (top > d.hi + 2 * d.margin) bad.add(c, k, at(best), "row maximum ", top, " lifted far past hi");
    }
  }
}

void check_other(const Case& c, int k, const HostTensor& t, Violations& bad) {
  const Domain& d = c.decl.inputs[static_cast<std::size_t>(k)].domain;
  const double gumbel_lo = -std::log(-std::log(1e-6)) - 1e-2, gumbel_hi = -std::log(-std::log(1 - 1e-6)) + 1e-1;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double x = t.get(i);
    switch (d.kind) {
      case Domain::Kind::class_index:
        if (t.dtype() != DType::i32) bad.add(c, k, i, "class indices must be i32");
        if (x != std::floor(x) || x < 0 || std::fmod(x, d.class_stride) != 0 || x / d.class_stride >= d.classes)
          bad.add(c, k, i, x, " is not a class k * ", d.class_stride, ", k in [0, ", d.classes, ")");
        break;
      case Domain::Kind::gumbel_noise:
        if (!(x >= gumbel_lo && x <= gumbel_hi)) bad.add(c, k, i, "Gumbel noise ", x, " out of its range");
        break;
      case Domain::Kind::probability:
        if (!(x >= 0 && x <= 1)) bad.add(c, k, i, "probability ", x, " outside [0, 1]");
        break;
      case Domain::Kind::normal:
        if (!(std::fabs(x - d.mean) <= 8 * d.sd)) bad.add(c, k, i, x, " is more than 8 sd from ", d.mean);
        break;
      case Domain::Kind::magnitude:
        if (!(std::fabs(x) >= d.lo && std::fabs(x) <= d.hi)) bad.add(c, k, i, "|", x, "| outside the magnitudes");
        break;
      case Domain::Kind::constant:
        if (x != d.lo) bad.add(c, k, i, x, " is not the constant ", d.lo);
        break;
      case Domain::Kind::near_multiples: {
        const double m = std::round((x - d.phase) / d.period);
        const double off = std::fabs(x - d.phase - m * d.period);
        if (!(std::fabs(m) <= d.multiples && off <= d.hi + ulp_of(t.dtype(), x)))
          bad.add(c, k, i, x, " is ", off, " from ", d.phase, " + ", m, " ", d.period);
        break;
      }
      default:
        break;
    }
  }
  // The spread of a normal domain is what its case is about (rows at 1000 +- 0.01): a draw that
  // lost it to rounding would make variance zero.
  if (d.kind == Domain::Kind::normal && t.numel() >= 16) {
    double m = 0, m2 = 0;
    for (std::int64_t i = 0; i < t.numel(); ++i) m += t.get(i) / static_cast<double>(t.numel());
    for (std::int64_t i = 0; i < t.numel(); ++i) m2 += (t.get(i) - m) * (t.get(i) - m) / static_cast<double>(t.numel());
    if (std::fabs(std::sqrt(m2) / d.sd - 1) > 0.5) bad.add(c, k, 0, "sample sd ", std::sqrt(m2), " far from ", d.sd);
  }
  if (d.kind == Domain::Kind::magnitude && t.numel() >= 16) {
    bool pos = false, neg = false;
    for (std::int64_t i = 0; i < t.numel(); ++i) (t.get(i) > 0 ? pos : neg) = true;
    if (!(pos && neg)) bad.add(c, k, 0, "tiny arguments of one sign only");
  }
}

TEST(Inputs, EveryCaseRespectsItsDomainsAtThreeSeeds) {
  std::set<Domain::Kind> kinds_seen;
  Violations bad;
  for (const Case& c : all_cases()) {
    for (std::uint64_t seed : kSeeds) {
      bad.seed = seed;
      const std::vector<HostTensor> in = make_inputs(c, seed);
      ASSERT_EQ(in.size(), c.decl.inputs.size()) << c.id;
      for (int k = 0; k < static_cast<int>(in.size()); ++k) {
        const HostTensor& t = in[static_cast<std::size_t>(k)];
        EXPECT_EQ(t.shape(), c.decl.inputs[static_cast<std::size_t>(k)].shape) << c.id;
        EXPECT_EQ(t.dtype(), c.call.input_dtypes[static_cast<std::size_t>(k)]) << c.id;
        const Domain::Kind kind = c.decl.inputs[static_cast<std::size_t>(k)].domain.kind;
        kinds_seen.insert(kind);
        switch (kind) {
          case Domain::Kind::uniform:
          case Domain::Kind::half_integer_free:
          case Domain::Kind::gate:
            check_pointwise(c, k, t, bad);
            check_sign_balance(c, k, t, bad);
            break;
          case Domain::Kind::apart_from_input0:
            check_apart(c, k, in, bad);
            break;
          // BUG (reported, harness/check/inputs.cpp lift_row_maxima): the lifted maximum
          // nextafter(second + margin) is stored through HostTensor::set, which rounds to the
          // nearest f32, so it can land half an ULP below second + margin. Seen at seed 1:
          // max(axis=0,keepdim=0,shape=16x33,dtype=f32)[233] = 3.8003368377685547 is
          // 0.04999995231628418 above 3.7503368854522705, margin 0.05.
          case Domain::Kind::unique_row_max:
            check_row_maxima(c, k, t, bad);
            break;
          default:
            check_other(c, k, t, bad);
            break;
        }
      }
    }
  }
  EXPECT_EQ(bad.count(), 0);
  // The loop above proves nothing for a kind no case uses: all twelve must be exercised.
  // BUG (reported, then in cases/chosen.cpp): `g.dtypes = r.dtypes` reads r after std::move(r), so
  // ste_hardtanh_gate gets no dtypes and no case, and the gate kind is never exercised.
  EXPECT_EQ(kinds_seen.size(), 12u);
}

// The catalog's kinks column and the cases agree: every drawn value of an op with kinks stays
// clear of them, and where the gradient is the derivative (checked by finite differences) the
// case caps the step below that distance. A case drawing across a kink would compare one-sided
// differences with the derivative of the other side.
TEST(Inputs, CasesKeepClearOfTheCatalogsKinks) {
  int checked = 0;
  for (const Case& c : all_cases()) {
    const auto kinks = op_kinks(c.decl.op);
    if (kinks.empty()) continue;
    const bool exact = !op_is_straight_through(c.decl.op);
    if (exact) {
      EXPECT_GT(c.decl.fd_max_step, 0) << c.id << ": no finite-difference step cap near its kinks";
    }
    for (std::uint64_t seed : kSeeds) {
      const HostTensor x = make_inputs(c, seed)[0];
      for (std::int64_t i = 0; i < x.numel(); ++i)
        for (double k : kinks) {
          const double gap = std::fabs(x.get(i) - k);
          EXPECT_GE(gap, 0.02) << c.id << " seed " << seed << ": x = " << x.get(i) << " at the kink " << k;
          if (exact) {
            EXPECT_GT(gap, c.decl.fd_max_step) << c.id << " seed " << seed << ": x = " << x.get(i);
          }
        }
    }
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

std::vector<std::byte> bytes_of(const std::vector<HostTensor>& ts) {
  std::vector<std::byte> b;
  for (const auto& t : ts) b.insert(b.end(), t.data(), t.data() + t.bytes());
  return b;
}

TEST(Inputs, SameSeedSameBytesOtherSeedOtherBytes) {
  int compared = 0;
  for (const Case& c : all_cases()) {
    const auto a = bytes_of(make_inputs(c, 42));
    EXPECT_EQ(a, bytes_of(make_inputs(c, 42))) << c.id;
    std::int64_t elements = 0;
    for (const auto& in : c.decl.inputs) elements += in.shape.numel();
    // A handful of 16-bit values can coincide by chance between seeds; seven cannot.
    if (elements >= 7) {
      EXPECT_NE(a, bytes_of(make_inputs(c, 43))) << c.id;
      ++compared;
    }
  }
  EXPECT_GT(compared, static_cast<int>(all_cases().size()) / 2);
}

TEST(Cotangent, DeterministicPerSeedAndStreamWithGaussianValues) {
  for (const Case& c : all_cases()) {
    const HostTensor dy = make_cotangent(c, 42);
    ASSERT_EQ(dy.dtype(), c.dtype) << c.id;
    ASSERT_EQ(dy.shape(), c.call.output_shape) << c.id;
    EXPECT_EQ(bytes_of({dy}), bytes_of({make_cotangent(c, 42)})) << c.id;
    if (dy.numel() >= 7) {
      EXPECT_NE(bytes_of({dy}), bytes_of({make_cotangent(c, 43)})) << c.id;
      EXPECT_NE(bytes_of({dy}), bytes_of({make_cotangent(c, 42, 1)})) << c.id;
    }
    if (dy.numel() >= 4096) {  // moments of N(1/2, 1) within 6 sigma
      double sum = 0, sum_sq = 0;
      for (double v : dy.to_doubles()) sum += v, sum_sq += v * v;
      const double n = static_cast<double>(dy.numel()), mean = sum / n;
      EXPECT_NEAR(mean, 0.5, 6 / std::sqrt(n)) << c.id;
      EXPECT_NEAR(sum_sq / n - mean * mean, 1.0, 6 * std::sqrt(2 / n)) << c.id;
    }
  }
}

// Past 2^24 elements a cotangent is drawn in blocks, its values in pairs: every element is drawn,
// the last of an odd count too (an element left out stays 0, which a draw of 1/2 + N(0, 1) is not).
TEST(Cotangent, ALargeOddCotangentIsDrawnToItsLastElement) {
  const Case* base = find_case("exp(large,shape=100000000,dtype=f32)");
  ASSERT_NE(base, nullptr);
  Case c = *base;
  const std::int64_t n = (std::int64_t{1} << 24) + 3;
  c.call.input_shapes = {Shape{n}};
  c.call.output_shape = Shape{n};
  const HostTensor dy = make_cotangent(c, 1);
  ASSERT_EQ(dy.numel(), n);
  const std::span<const float> v = dy.as<float>();
  EXPECT_EQ(std::count(v.begin(), v.end(), 0.0f), 0);
  EXPECT_NE(v.back(), 0.0f) << "the last element of an odd count was not drawn";
  double sum = 0, sum_sq = 0;
  for (float x : v) sum += x, sum_sq += double(x) * x;
  const double mean = sum / double(n);
  EXPECT_NEAR(mean, 0.5, 6 / std::sqrt(double(n)));
  EXPECT_NEAR(sum_sq / double(n) - mean * mean, 1.0, 6 * std::sqrt(2 / double(n)));
}

}  // namespace
}  // namespace gp
