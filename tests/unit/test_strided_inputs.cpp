// Strided inputs (core/strided.hpp, docs/strided-inputs.md): each view's layout reads the logical
// tensor from a storage whose other elements are poison; values an expanded view cannot hold are
// made or refused as it holds them; and a device that reads a strided input wrongly fails its
// cases while an exact one passes them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/device_calls.hpp"
#include "harness/check/inputs.hpp"
#include "harness/check/poison.hpp"
#include "support/fake_backend.hpp"

namespace gp {
namespace {

using namespace fake_backend_names;
using ::testing::HasSubstr;

// 0, 1, 2, ... in row-major order: every element tells where it came from.
HostTensor counting(const Shape& s) {
  HostTensor t(DType::f32, s);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, static_cast<double>(i));
  return t;
}

HostTensor stored(const HostTensor& logical, const StridedLayout& layout) {
  return to_storage(logical, layout, poison_tensor(DType::f32, Shape{storage_elements(logical.shape(), layout)}));
}

TEST(StridedLayouts, ATransposedViewIsStoredAsTheTranspose) {
  const Shape s{3, 4};
  const StridedLayout layout = *view_layout(InputView::transposed, s);
  EXPECT_EQ(layout.strides, (std::vector<std::int64_t>{1, 3}));
  const HostTensor storage = stored(counting(s), layout);
  ASSERT_EQ(storage.numel(), 12);
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t c = 0; c < 4; ++c) EXPECT_EQ(storage.get(c * 3 + r), static_cast<double>(r * 4 + c));
  EXPECT_EQ(first_bitwise_difference(from_storage(storage, s, layout), counting(s)), -1);
}

TEST(StridedLayouts, AStep2ViewReadsEveryOtherElementFromTheSecondAndPoisonsTheRest) {
  const Shape s{3, 4};
  const StridedLayout layout = *view_layout(InputView::step2, s);
  const HostTensor storage = stored(counting(s), layout);
  ASSERT_EQ(storage.numel(), 24);  // rows of 8, the last element read is 23
  for (std::int64_t i = 0; i < storage.numel(); ++i) {
    if (i % 2 == 1)
      EXPECT_EQ(storage.get(i), static_cast<double>(i / 2));
    else
      EXPECT_TRUE(is_poison(storage, i)) << i;
  }
  EXPECT_EQ(first_bitwise_difference(from_storage(storage, s, layout), counting(s)), -1);
}

TEST(StridedLayouts, AnExpandedViewStoresOneSliceThatEveryIndexOfTheFirstAxisReads) {
  const Shape s{3, 4};
  const StridedLayout layout = *view_layout(InputView::expanded, s);
  EXPECT_EQ(storage_elements(s, layout), 4);
  // What a view can hold: the last slice written, read by every index.
  const HostTensor viewed = as_viewed(counting(s), layout);
  for (std::int64_t i = 0; i < 12; ++i) EXPECT_EQ(viewed.get(i), static_cast<double>(8 + i % 4)) << i;
  std::vector<double> direction = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  keep_viewable(direction, s, layout);
  for (std::size_t i = 0; i < direction.size(); ++i) EXPECT_EQ(direction[i], static_cast<double>(8 + i % 4)) << i;
  EXPECT_EQ(storage_elements(Shape{0, 4}, layout), 0);
}

TEST(StridedLayouts, ACallWithALayoutThatDoesNotFitIsInvalid) {
  OpCall call = make_call(OpKind::exp, {}, DType::f32, {Shape{3, 4}}, "exp(test)");
  call.input_layouts = {StridedLayout{{4}, 0}};
  EXPECT_THAT(call_problem(call).value_or(""), HasSubstr("1 strides for a tensor of rank 2"));
  call.input_layouts = {StridedLayout{{4, -1}, 0}};
  EXPECT_THAT(call_problem(call).value_or(""), HasSubstr("a negative stride"));
  call.input_layouts = {StridedLayout{{1, 3}, 0}, std::nullopt};
  EXPECT_THAT(call_problem(call).value_or(""), HasSubstr("2 input layouts for 1 inputs"));
  call.input_layouts = {StridedLayout{{1, 3}, 0}};
  EXPECT_FALSE(call_problem(call));
}

const Case& strided_case(const std::string& id) {
  const Case* c = find_case(id);
  if (!c) throw Error("missing case " + id);
  return *c;
}

TEST(StridedInputs, ExpandedInputsAreDrawnAsTheViewHoldsThem) {
  const Case& c = strided_case("mul(view=expanded|step2,shape=9x33|9x33,dtype=f32)");
  const std::vector<HostTensor> in = make_inputs(c, 3);
  for (std::int64_t i = 33; i < in[0].numel(); ++i) ASSERT_EQ(in[0].get(i), in[0].get(i % 33)) << i;
  // The buffer a device gets holds the storage: one row, for the expanded input.
  EXPECT_EQ(input_buffer(c.call, 0, in[0]).numel(), 33);
  HostTensor other = in[0];
  other.set(40, other.get(40) + 1);
  EXPECT_THROW(input_buffer(c.call, 0, other), Error);
}

TEST(StridedInputs, CasesFilesRefuseValuesAnExpandedViewCannotHold) {
  const Case& c = strided_case("mul(view=expanded|step2,shape=9x33|9x33,dtype=f32)");
  GivenValues given;
  given.inputs = make_inputs(c, 1);
  EXPECT_EQ(case_with_values(c, given).call.input_layouts, c.call.input_layouts);
  given.inputs[0].set(40, given.inputs[0].get(40) + 1);
  try {
    case_with_values(c, given);
    FAIL() << "accepted values its view cannot hold";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("input 0: element 40"));
  }
}

// Runs a strided case on the fake backend whose forward and backward read each strided input
// through `read` (the exact device reads it through its layout).
std::vector<CheckResult> run_reading(const Case& c, const std::function<StridedLayout(StridedLayout)>& read) {
  FakeBackend backend;
  NiceMock<MockQueue> queue;
  const auto reread = [&](const OpCall& call) {
    OpCall as_read = call;
    for (auto& layout : as_read.input_layouts)
      if (layout) layout = read(*layout);
    return as_read;
  };
  ON_CALL(queue, forward).WillByDefault([&](const OpCall& call, auto in, DeviceBuffer& out) {
    exact_forward(reread(call), in, out);
  });
  ON_CALL(queue, backward)
      .WillByDefault([&](const OpCall& call, auto in, const DeviceBuffer& out, const DeviceBuffer& dout, auto grads) {
        exact_backward(reread(call), in, out, dout, grads);
      });
  const ReferenceData data = prepare_reference(c, 5);
  return check_on_backend(c, {"fake", &backend, &queue}, data, {5});
}

int count(const std::vector<CheckResult>& checks, Verdict v) {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(), [&](const auto& r) { return r.verdict == v; }));
}

StridedLayout without_offset(StridedLayout l) {
  l.offset = 0;
  return l;
}
StridedLayout last_two_strides_swapped(StridedLayout l) {
  if (l.strides.size() >= 2) std::swap(l.strides[l.strides.size() - 2], l.strides.back());
  return l;
}

TEST(StridedInputs, ADeviceThatMisreadsAStridedInputFailsAndAnExactOnePasses) {
  struct Misread {
    const char* id;
    StridedLayout (*read)(StridedLayout);
  };
  for (const Misread& m :
       {Misread{"exp(view=step2,shape=9x33,dtype=f32)", without_offset},
        Misread{"matmul(view=transposed|contiguous,shape=17x20|20x9,dtype=f64)", last_two_strides_swapped},
        Misread{"layer_norm(eps=1e-05,view=transposed|step2|expanded,shape=9x33|33|33,dtype=f32)", without_offset}}) {
    const Case& c = strided_case(m.id);
    const auto exact = run_reading(c, [](StridedLayout l) { return l; });
    EXPECT_EQ(count(exact, Verdict::fail) + count(exact, Verdict::error), 0) << m.id;
    EXPECT_GT(count(exact, Verdict::pass), 0) << m.id;
    EXPECT_GT(count(run_reading(c, m.read), Verdict::fail), 0) << m.id;
  }
}

}  // namespace
}  // namespace gp
