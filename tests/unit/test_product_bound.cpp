// reference/product_bound.hpp: the bound that the large tier's complete check of a matrix product
// gives every element is at or above the Tracked evaluation's bound there (so a correct kernel
// that passes the small tier's check passes it), and its value is the reference's within the
// host GEMM's stated error; on every 2-D matmul and linear case of the small tier (their hard
// regimes: long dot products, all-positive terms, cancellation, small integers) and on the large
// tier's inner-4097 GEMM, each tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include "cases/registry.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/tolerance.hpp"
#include "reference/product_bound.hpp"
#include "support/lookup.hpp"

namespace gp {
namespace {

// How far above the Tracked bound the product bound lies, printed for docs/scale.md.
struct Looseness {
  std::vector<double> ratios;  // the product bound over the Tracked one, per element with one
  std::int64_t elements = 0;
  std::string describe() {
    std::sort(ratios.begin(), ratios.end());
    if (ratios.empty()) return std::to_string(elements) + " elements";
    auto at = [&](double q) { return ratios[static_cast<std::size_t>(q * static_cast<double>(ratios.size() - 1))]; };
    return std::to_string(elements) + " elements: the product bound over the Tracked one, median " +
           std::to_string(at(0.5)) + ", 99th percentile " + std::to_string(at(0.99)) + ", largest " +
           std::to_string(ratios.back());
  }
};

// Every element of tensor `t` of case `c`: the product bound's value and bound against the
// whole Tracked evaluation's.
void expect_above_tracked(const Case& c, const ReferenceData& data, int t, const MathProfile& profile,
                          Looseness& looseness) {
  const ref::Bounded& whole = data.bounded(&profile, true);
  const ref::RefTensor& tracked = t == ref::kOutputTensor ? whole.output : whole.grads.at(static_cast<std::size_t>(t));
  const std::optional<ref::ProductForm> form = ref::product_form(c.call, t, data.inputs, data.cotangent);
  ASSERT_TRUE(form) << c.id << " tensor " << t;
  ASSERT_EQ(ref::product_form_refusal(*form), "") << c.id;
  const ref::ProductBounds bounds(*form, c.dtype);
  ASSERT_EQ(bounds.rows() * bounds.cols(), tracked.numel()) << c.id << " tensor " << t;
  // In two blocks of rows, as the complete check asks for them.
  const std::int64_t half = bounds.rows() / 2;
  for (const auto& [first, count] : {std::pair{std::int64_t{0}, half}, std::pair{half, bounds.rows() - half}}) {
    if (count == 0) continue;
    const ref::RefTensor mine = bounds.rows(first, count);
    for (std::int64_t e = 0; e < mine.numel(); ++e) {
      const std::size_t at = static_cast<std::size_t>(first * bounds.cols() + e);
      const ref::ErrorBound& m = mine.err[static_cast<std::size_t>(e)];
      // Each is a sum of the same terms, within its own host error of the exact one (the
      // reference's long-double sum within less than the product bound's spec).
      EXPECT_LE(std::fabs(mine.v[static_cast<std::size_t>(e)] - tracked.v[at]), 2 * m.spec)
          << c.id << " tensor " << t << " element " << at;
      const double ours = propagated_error(m), theirs = propagated_error(tracked.err[at]);
      ASSERT_GE(ours, theirs) << c.id << " tensor " << t << " element " << at << " (" << profile.source() << "): prob "
                              << static_cast<double>(m.prob) << " against " << static_cast<double>(tracked.err[at].prob)
                              << ", det " << static_cast<double>(m.det) << " against "
                              << static_cast<double>(tracked.err[at].det);
      if (theirs > 0) looseness.ratios.push_back(ours / theirs);
      ++looseness.elements;
    }
  }
}

void expect_every_tensor_above_tracked(const Case& c, Looseness& looseness) {
  const ReferenceData data = prepare_reference(c, 2);
  const int grads = c.call.kind == OpKind::linear ? 3 : 2;
  // A matrix product calls no library function: one profile stands for every device's.
  for (int t = ref::kOutputTensor; t < grads; ++t)
    expect_above_tracked(c, data, t, correctly_rounded_profile(), looseness);
}

TEST(ProductBound, EveryElementOfEverySmallGemmIsAtOrAboveItsTrackedBound) {
  Looseness looseness;
  int cases = 0;
  for (const Case& c : all_cases()) {
    if ((c.call.kind != OpKind::matmul && c.call.kind != OpKind::linear) || matmul_dims(c.call).batch != 1 ||
        has_empty_input(c.call))  // the large tier's bound, which no empty case needs
      continue;
    expect_every_tensor_above_tracked(c, looseness);
    ++cases;
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(cases, 20);
  std::cout << cases << " cases, " << looseness.describe() << "\n";
}

TEST(ProductBound, TheLargeTiersInnerTileGemmIsAtOrAboveItsTrackedBound) {
  Looseness looseness;
  expect_every_tensor_above_tracked(testing::case_named("matmul(large,shape=33x4097|4097x31,dtype=f32)"), looseness);
  std::cout << looseness.describe() << "\n";
}

TEST(ProductBound, OtherOpsAndBatchedProductsHaveNoForm) {
  const Case& exp = testing::case_named("exp(shape=16x33,dtype=f32)");
  const ReferenceData data = prepare_reference(exp, 1);
  EXPECT_FALSE(ref::product_form(exp.call, ref::kOutputTensor, data.inputs, data.cotangent));
  const Case& batched = testing::case_named("matmul(shape=4x16x7|4x7x9,dtype=bf16)");
  const ReferenceData b = prepare_reference(batched, 1);
  EXPECT_FALSE(ref::product_form(batched.call, ref::kOutputTensor, b.inputs, b.cotangent));
}

}  // namespace
}  // namespace gp
