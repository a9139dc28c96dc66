// core/shape, core/tensor and the index geometry of core/op: shape parsing and axes, host
// tensor storage per dtype, broadcasting plans, axis splits, and make_call's shape errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/op.hpp"
#include "core/tensor.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

TEST(Shape, NumelAxisAndText) {
  EXPECT_EQ(Shape{}.numel(), 1);
  EXPECT_EQ(Shape{}.to_string(), "scalar");
  const Shape s{4, 7, 9};
  EXPECT_EQ(s.numel(), 252);
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.to_string(), "4x7x9");
  EXPECT_EQ(s.axis(-1), 2);
  EXPECT_EQ(s.axis(-3), 0);
  EXPECT_EQ(s.axis(1), 1);
  EXPECT_THROW(s.axis(3), Error);
  EXPECT_THROW(s.axis(-4), Error);
  EXPECT_THROW(Shape{}.axis(0), Error);
}

TEST(Shape, ParseAcceptsWhatToStringWrites) {
  for (const Shape& s : {Shape{}, Shape{7}, Shape{16, 33}, Shape{4, 7, 9}, Shape{1, 2, 3, 4}, Shape{0}, Shape{16, 0}}) {
    Shape back{99};
    ASSERT_TRUE(parse_shape(s.to_string(), back)) << s.to_string();
    EXPECT_EQ(back, s);
  }
  for (const std::string bad : {"", "x", "16x", "x16", "16xx33", "-3", "16x-1", "1x2x3x4x5", "7a", "scalarx"}) {
    Shape out{5};
    EXPECT_FALSE(parse_shape(bad, out)) << "'" << bad << "'";
    EXPECT_EQ(out, Shape{5}) << "'" << bad << "' changed the output";
  }
}

TEST(HostTensor, StoresEachDtypeInItsOwnFormat) {
  for (DType t : {DType::f16, DType::bf16, DType::f32, DType::f64, DType::i32}) {
    HostTensor h(t, Shape{3, 5});
    EXPECT_EQ(h.bytes(), 15 * dtype_size(t)) << dtype_name(t);
    EXPECT_EQ(h.numel(), 15);
    for (std::int64_t i = 0; i < 15; ++i) h.set(i, 0.1 * static_cast<double>(i) - 0.7);
    for (std::int64_t i = 0; i < 15; ++i) {
      const double x = 0.1 * static_cast<double>(i) - 0.7;
      EXPECT_EQ(h.get(i), t == DType::i32 ? static_cast<double>(std::lround(x)) : round_to(t, x))
          << dtype_name(t) << " [" << i << "]";
    }
    EXPECT_EQ(h.to_doubles().size(), 15u);
  }
  HostTensor f16(DType::f16, Shape{1});
  f16.set(0, 1.0 + 0x1p-10);
  std::uint16_t bits;
  std::memcpy(&bits, f16.data(), 2);
  EXPECT_EQ(bits, 0x3C01);  // the storage format itself, not a widened copy
  HostTensor f32(DType::f32, Shape{2});
  f32.set(1, 0.1);
  EXPECT_EQ(f32.as<float>()[1], 0.1f);
}

TEST(Broadcast, PlanIndicesFollowNumpyRules) {
  const BroadcastPlan p = broadcast_plan(Shape{16, 1}, Shape{1, 33});
  EXPECT_EQ(p.numel, 16 * 33);
  for (std::int64_t r = 0; r < 16; ++r) {
    for (std::int64_t c = 0; c < 33; ++c) {
      EXPECT_EQ(p.a_index(r * 33 + c), r);
      EXPECT_EQ(p.b_index(r * 33 + c), c);
    }
  }
  const BroadcastPlan bias = broadcast_plan(Shape{64, 128}, Shape{128});
  EXPECT_EQ(bias.a_index(5 * 128 + 7), 5 * 128 + 7);
  EXPECT_EQ(bias.b_index(5 * 128 + 7), 7);
  const BroadcastPlan scalar = broadcast_plan(Shape{}, Shape{16, 33});
  EXPECT_EQ(scalar.a_index(100), 0);
  EXPECT_EQ(scalar.b_index(100), 100);
  EXPECT_EQ(broadcast_shapes(Shape{4, 1, 9}, Shape{7, 1}), (Shape{4, 7, 9}));
  // A dimension of 1 stretches to 0 as to any size (NumPy's rule): [0, 5] + [5] is [0, 5].
  EXPECT_EQ(broadcast_shapes(Shape{0, 5}, Shape{5}), (Shape{0, 5}));
  EXPECT_EQ(broadcast_shapes(Shape{1, 5}, Shape{3, 0, 1}), (Shape{3, 0, 5}));
  EXPECT_EQ(broadcast_plan(Shape{0, 5}, Shape{5}).numel, 0);
  EXPECT_THROW(broadcast_shapes(Shape{0}, Shape{2}), Error);
  try {
    broadcast_shapes(Shape{16, 33}, Shape{32});
    ADD_FAILURE() << "16x33 and 32 must not broadcast";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("16x33"));
  }
}

TEST(AxisSplit, OuterNInner) {
  const AxisSplit mid = split_at_axis(Shape{4, 7, 9}, 1);
  EXPECT_EQ(mid.outer, 4);
  EXPECT_EQ(mid.n, 7);
  EXPECT_EQ(mid.inner, 9);
  const AxisSplit last = split_at_axis(Shape{4, 7, 9}, -1);
  EXPECT_EQ(last.outer, 28);
  EXPECT_EQ(last.n, 9);
  EXPECT_EQ(last.inner, 1);
  EXPECT_THROW(split_at_axis(Shape{4, 7}, 2), Error);
}

TEST(MakeCall, InfersShapesAndNamesTheOpInErrors) {
  OpAttrs axis1;
  axis1.axis = 1;
  axis1.keepdim = true;
  EXPECT_EQ(make_call(OpKind::sum, axis1, DType::f32, {Shape{4, 7, 9}}).output_shape, (Shape{4, 1, 9}));
  const OpCall mm = make_call(OpKind::matmul, {}, DType::f64, {Shape{3, 8, 128}, Shape{3, 128, 5}});
  EXPECT_EQ(mm.output_shape, (Shape{3, 8, 5}));
  const MatmulDims d = matmul_dims(mm);
  EXPECT_EQ(d.batch, 3);
  EXPECT_EQ(d.m, 8);
  EXPECT_EQ(d.k, 128);
  EXPECT_EQ(d.n, 5);
  const OpCall ce = make_call(OpKind::cross_entropy, {}, DType::f16, {Shape{7, 33}, Shape{7}});
  EXPECT_EQ(ce.output_shape, Shape{});
  EXPECT_EQ(ce.input_dtypes, (std::vector<DType>{DType::f16, DType::i32}));
  auto expect_error = [](const std::function<void()>& f, const std::string& text) {
    try {
      f();
      ADD_FAILURE() << "no error, expected one mentioning " << text;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(text));
    }
  };
  expect_error([] { make_call(OpKind::matmul, {}, DType::f32, {Shape{16, 7}, Shape{8, 9}}); }, "matmul");
  expect_error([] { make_call(OpKind::add, {}, DType::f32, {Shape{7}}); }, "expects 2 inputs");
  expect_error([] { make_call(OpKind::exp, {}, DType::i32, {Shape{7}}); }, "floating point");
  OpAttrs bad_slice;
  bad_slice.axis = 0;
  bad_slice.start = 3;
  bad_slice.stop = 200;
  expect_error([&] { make_call(OpKind::slice, bad_slice, DType::f32, {Shape{127}}); }, "slice");
}

// Where a call reduces over no element, the catalog gives sum's identity or refuses the call
// (core/op.hpp, op_reduces_empty_to_zero): never a 0/0 a backend would have to invent.
TEST(MakeCall, ReducingOverNoElementGivesZeroOrIsRefused) {
  OpAttrs axis0;
  axis0.axis = 0;
  EXPECT_EQ(make_call(OpKind::sum, axis0, DType::f32, {Shape{0, 5}}).output_shape, (Shape{5}));
  for (OpKind op : {OpKind::mean, OpKind::max, OpKind::logsumexp, OpKind::variance})
    EXPECT_THROW(make_call(op, axis0, DType::f32, {Shape{0, 5}}), Error) << op_name(op);
  OpAttrs unbiased = axis0;
  unbiased.correction = 1;
  EXPECT_THROW(make_call(OpKind::variance, unbiased, DType::f32, {Shape{1, 5}}), Error);
  EXPECT_EQ(make_call(OpKind::variance, unbiased, DType::f32, {Shape{2, 5}}).output_shape, (Shape{5}));
  EXPECT_THROW(make_call(OpKind::layer_norm, {}, DType::f32, {Shape{3, 0}, Shape{0}, Shape{0}}), Error);
  EXPECT_THROW(make_call(OpKind::rms_norm, {}, DType::f32, {Shape{3, 0}, Shape{0}}), Error);
  EXPECT_THROW(make_call(OpKind::mse_loss, {}, DType::f32, {Shape{0, 5}, Shape{0, 5}}), Error);
  OpAttrs summed;
  summed.reduction = LossReduction::sum;
  EXPECT_EQ(make_call(OpKind::mse_loss, summed, DType::f32, {Shape{0, 5}, Shape{0, 5}}).output_shape, Shape{});
  EXPECT_THROW(make_call(OpKind::bce_with_logits, {}, DType::f32, {Shape{0}, Shape{0}}), Error);
  EXPECT_THROW(make_call(OpKind::cross_entropy, {}, DType::f32, {Shape{0, 5}, Shape{0}}), Error);
  EXPECT_THROW(make_call(OpKind::cross_entropy, {}, DType::f32, {Shape{3, 0}, Shape{3}}), Error);
  // Rows of five, none of them: every output is empty, nothing is reduced over no element.
  OpAttrs axis1;
  axis1.axis = 1;
  for (OpKind op : {OpKind::mean, OpKind::max, OpKind::logsumexp, OpKind::variance})
    EXPECT_EQ(make_call(op, axis1, DType::f32, {Shape{0, 5}}).output_shape, (Shape{0})) << op_name(op);
}

}  // namespace
}  // namespace gp
