#include "harness/check/inputs.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/parallel_blocks.hpp"
#include "harness/check/rng.hpp"

namespace gp {

namespace {

constexpr int kMaxInputDraws = 10000;

// A tensor of more elements (the large tier's 10^8 and 2^31 + 4,097) is drawn in blocks of
// kDrawBlock, each from its own stream, on every core, a cotangent's normal values in Box-Muller
// pairs (Rng::normal_pair); smaller ones from one stream, a value a draw, as always.
constexpr std::int64_t kOneStreamElements = std::int64_t{1} << 24, kDrawBlock = std::int64_t{1} << 20;

// fill(rng, begin, end) writes elements [begin, end) of one block from that block's stream.
template <typename Fill>
void fill_by_blocks(std::int64_t numel, std::uint64_t seed, const std::string& case_id, const std::string& purpose,
                    const Fill& fill) {
  for_each_block(numel, kDrawBlock, [&](std::int64_t block, std::int64_t begin, std::int64_t end) {
    Rng rng = Rng::for_case(seed, case_id, purpose + "/block" + std::to_string(block));
    fill(rng, begin, end);
  });
}

// Draws one value of a pointwise domain, rounded to dtype, redrawn until the rounded value
// still keeps its distance from kinks.
double draw_pointwise(const Domain& d, DType t, Rng& rng, const std::string& case_id) {
  for (int attempt = 0; attempt < kMaxInputDraws; ++attempt) {
    double x = 0;
    switch (d.kind) {
      case Domain::Kind::class_index:
        return static_cast<double>(rng.below(static_cast<std::uint64_t>(d.classes)) *
                                   static_cast<std::uint64_t>(d.class_stride));
      case Domain::Kind::gumbel_noise: {
        double u = rng.uniform(1e-6, 1 - 1e-6);
        x = -std::log(-std::log(u));
        break;
      }
      case Domain::Kind::probability:
        x = rng.uniform();
        break;
      case Domain::Kind::normal:
        x = d.mean + d.sd * rng.normal();
        break;
      case Domain::Kind::constant:
        return d.lo;
      case Domain::Kind::magnitude:
        x = std::exp(rng.uniform(std::log(d.lo), std::log(d.hi)));
        if (rng.uniform() < 0.5) x = -x;
        break;
      case Domain::Kind::near_multiples: {
        const auto k = static_cast<double>(rng.below(2 * static_cast<std::uint64_t>(d.multiples) + 1)) - d.multiples;
        const double t = std::exp(rng.uniform(std::log(d.lo), std::log(d.hi)));
        x = d.phase + k * d.period + (rng.uniform() < 0.5 ? -t : t);
        break;
      }
      default:
        x = rng.uniform(d.lo, d.hi);
        break;
    }
    x = round_to(t, x);
    bool ok = std::fabs(x) >= d.min_abs && x >= d.lo && x <= d.hi;
    if (d.kind == Domain::Kind::magnitude) ok = std::fabs(x) >= d.lo && std::fabs(x) <= d.hi;
    if (d.kind == Domain::Kind::half_integer_free) ok = ok && std::fabs(x - (std::floor(x) + 0.5)) >= d.margin;
    if (d.kind == Domain::Kind::gate) ok = ok && std::fabs(x) >= d.margin && std::fabs(std::fabs(x) - 1) >= d.margin;
    for (double k : d.kinks) ok = ok && std::fabs(x - k) >= d.margin;
    // The rounding to dtype moves t, and may bring it below lo: the nearest value is the point.
    if (d.kind == Domain::Kind::gumbel_noise || d.kind == Domain::Kind::probability ||
        d.kind == Domain::Kind::near_multiples)
      ok = true;
    if (ok) return x;
  }
  throw Error("could not draw an input in its domain for case " + case_id);
}

// y elements paired (by broadcasting) with x elements must stay `margin` apart from all of them.
void keep_apart(const HostTensor& x, HostTensor& y, const Domain& d, Rng& rng, const std::string& case_id) {
  BroadcastPlan plan = broadcast_plan(x.shape(), y.shape());
  std::vector<std::vector<double>> partners(static_cast<std::size_t>(y.numel()));
  for (std::int64_t i = 0; i < plan.numel; ++i)
    partners[static_cast<std::size_t>(plan.b_index(i))].push_back(x.get(plan.a_index(i)));
  for (std::int64_t j = 0; j < y.numel(); ++j) {
    bool placed = false;
    for (int attempt = 0; attempt < kMaxInputDraws && !placed; ++attempt) {
      double v = round_to(y.dtype(), rng.uniform(d.lo, d.hi));
      placed = true;
      for (double p : partners[static_cast<std::size_t>(j)]) placed = placed && std::fabs(v - p) >= d.margin;
      if (placed) y.set(j, v);
    }
    if (!placed) throw Error("could not keep inputs apart for case " + case_id);
  }
}

// Every row along the axis gets a unique maximum at least `margin` above the runner-up.
void lift_row_maxima(HostTensor& x, int axis, double margin) {
  AxisSplit s = split_at_axis(x.shape(), axis);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](std::int64_t j) { return (o * s.n + j) * s.inner + i; };
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < s.n; ++j)
        if (x.get(at(j)) > x.get(at(best))) best = j;
      double second = -INFINITY;
      for (std::int64_t j = 0; j < s.n; ++j)
        if (j != best) second = std::max(second, x.get(at(j)));
      // Lift to second + margin, rounded upwards on the dtype's grid so the gap is never short.
      if (s.n > 1 && x.get(at(best)) < second + margin) {
        const double target = second + margin;
        x.set(at(best), target);
        while (x.get(at(best)) - second < margin) x.set(at(best), x.get(at(best)) + ulp_of(x.dtype(), x.get(at(best))));
      }
    }
  }
}

// Kinked ops (relu, abs, ...) on a few elements could draw every value on one side of the kink
// and check one branch only, or an all-zero output: flip the first element when all agree.
void balance_signs(HostTensor& x, const Domain& d) {
  if (!(d.min_abs > 0 && d.lo < 0 && d.hi > 0)) return;
  bool any_pos = false, any_neg = false;
  for (std::int64_t i = 0; i < x.numel(); ++i) (x.get(i) > 0 ? any_pos : any_neg) = true;
  // One element: the branch with a slope; more: both branches.
  const bool flip = x.numel() == 1 ? any_neg : x.numel() > 1 && !(any_pos && any_neg);
  if (flip) x.set(0, -x.get(0));
}

// The hardtanh gate outputs 1 and passes its surrogate gradient only for x in (0, 1): make
// sure one element is there, mapping x[0] from [margin, 2] into [margin, 1 - margin].
void balance_gate(HostTensor& x, const Domain& d) {
  if (d.kind != Domain::Kind::gate || x.numel() == 0) return;
  for (std::int64_t i = 0; i < x.numel(); ++i)
    if (x.get(i) > 0 && x.get(i) < 1) return;
  const double t = (std::fabs(x.get(0)) - d.margin) / (d.hi - d.margin);
  x.set(0, d.margin + t * (1 - 2 * d.margin));
}

// maximum/minimum of same-shape inputs: both inputs must win somewhere, or one gradient is all
// zeros. When every y lies on one side of its x, move y[0] to the other side.
void balance_winners(const HostTensor& x, HostTensor& y, const Domain& d) {
  if (x.shape() != y.shape() || y.numel() < 2) return;
  bool above = false, below = false;
  for (std::int64_t i = 0; i < y.numel(); ++i) (y.get(i) > x.get(i) ? above : below) = true;
  if (above && below) return;
  const double side = above ? -1.0 : 1.0;
  y.set(0, round_to(y.dtype(), x.get(0) + side * (d.margin + 0.5)));
}

}  // namespace

std::vector<HostTensor> make_inputs(const Case& c, std::uint64_t seed) {
  if (c.given) return c.given->inputs;
  Rng rng = Rng::for_case(seed, c.id, "inputs");
  std::vector<HostTensor> out;
  for (std::size_t k = 0; k < c.decl.inputs.size(); ++k) {
    const InputSpec& spec = c.decl.inputs[k];
    HostTensor t(c.call.input_dtypes[k], spec.shape);
    if (spec.domain.kind == Domain::Kind::apart_from_input0) {
      keep_apart(out.at(0), t, spec.domain, rng, c.id);
      balance_winners(out.at(0), t, spec.domain);
    } else {
      // A single element is drawn from the central half of a smooth op's range: one sample in a
      // saturated tail (tanh(7.5)) has a derivative below what an f32 forward can resolve.
      Domain d = spec.domain;
      if (t.numel() == 1 && d.kind == Domain::Kind::uniform && d.min_abs == 0) {
        const double quarter = (d.hi - d.lo) / 4;
        d.lo += quarter;
        d.hi -= quarter;
      }
      if (t.numel() <= kOneStreamElements) {
        for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, draw_pointwise(d, t.dtype(), rng, c.id));
      } else {
        fill_by_blocks(t.numel(), seed, c.id, "inputs" + std::to_string(k),
                       [&](Rng& block_rng, std::int64_t begin, std::int64_t end) {
                         for (std::int64_t i = begin; i < end; ++i)
                           t.set(i, draw_pointwise(d, t.dtype(), block_rng, c.id));
                       });
      }
      if (spec.domain.kind == Domain::Kind::unique_row_max) lift_row_maxima(t, c.decl.attrs.axis, spec.domain.margin);
      balance_signs(t, spec.domain);
      balance_gate(t, spec.domain);
    }
    out.push_back(std::move(t));
  }
  keep_viewable(c, out);
  return out;
}

void keep_viewable(const Case& c, std::vector<HostTensor>& inputs) {
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (const StridedLayout* layout = input_layout(c.call, k)) inputs[k] = as_viewed(inputs[k], *layout);
}

HostTensor make_cotangent(const Case& c, std::uint64_t seed, int stream) {
  if (stream == 0 && c.given && c.given->cotangent) return *c.given->cotangent;
  Rng rng = Rng::for_case(seed, c.id, "cotangent" + std::to_string(stream));
  HostTensor dy(c.dtype, c.call.output_shape);
  // Mean 1/2, not 0: a broadcast input's gradient sums many cotangents, and zero-mean ones
  // nearly cancel now and then (seed 19 left sub(scalar|16x33)'s 528-term sum at 1.2e-3 against
  // 6.8e-4 of f32 finite-difference noise: MISTRUSTED on every backend).
  if (dy.numel() <= kOneStreamElements) {
    for (std::int64_t i = 0; i < dy.numel(); ++i) dy.set(i, 0.5 + rng.normal());
  } else {  // each block's elements in pairs (blocks are of even size; the last one may be odd)
    fill_by_blocks(dy.numel(), seed, c.id, "cotangent" + std::to_string(stream),
                   [&](Rng& block_rng, std::int64_t begin, std::int64_t end) {
                     for (std::int64_t i = begin; i < end; i += 2) {
                       const auto [first, second] = block_rng.normal_pair();
                       dy.set(i, 0.5 + first);
                       if (i + 1 < end) dy.set(i + 1, 0.5 + second);
                     }
                   });
  }
  return dy;
}

}  // namespace gp
