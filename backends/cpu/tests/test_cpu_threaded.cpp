// The CPU backend's calls above kernels/threaded.hpp's thresholds, which run in blocks on every
// core: every element written once, at its own place. An elementwise call must equal, bit for
// bit, the same op on each short piece of its data (which runs on the calling thread); a matrix
// product must stay within a few roundings of a double-precision product on every row,
// projected (a block computed from the wrong rows or left out is far off).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"

namespace gp {
namespace {

class CpuThreaded : public ::testing::Test {
 public:
  std::unique_ptr<Backend> backend = make_cpu_provider().discover({}).at(0).create();
  std::unique_ptr<Queue> queue = backend->create_queue();

  static HostTensor random(const Shape& s, std::uint64_t stream, DType dtype = DType::f32) {
    std::mt19937_64 rng(stream);
    std::uniform_real_distribution<double> in_range(-2.0, 2.0);
    HostTensor h(dtype, s);
    for (std::int64_t i = 0; i < h.numel(); ++i) h.set(i, in_range(rng));
    return h;
  }

  std::unique_ptr<DeviceBuffer> upload(const HostTensor& h) {
    auto b = backend->allocate(h.dtype(), h.shape());
    queue->upload(*b, h);
    return b;
  }

  // Output, then the gradient of every input (cotangent `dy`), each buffer NaN before the call.
  std::vector<HostTensor> run(const OpCall& call, const std::vector<HostTensor>& in, const HostTensor& dy) {
    std::vector<std::unique_ptr<DeviceBuffer>> inputs, grads;
    std::vector<const DeviceBuffer*> x;
    std::vector<DeviceBuffer*> slots;
    for (const auto& t : in) {
      inputs.push_back(upload(t));
      x.push_back(inputs.back().get());
      HostTensor poison(t.dtype(), t.shape());
      for (std::int64_t i = 0; i < poison.numel(); ++i) poison.set(i, std::numeric_limits<double>::quiet_NaN());
      grads.push_back(upload(poison));
      slots.push_back(grads.back().get());
    }
    auto out = backend->allocate(call.dtype, call.output_shape);
    queue->forward(call, x, *out);
    auto g = upload(dy);
    queue->backward(call, x, *out, *g, slots);
    std::vector<HostTensor> result = {queue->download(*out)};
    for (auto& b : grads) result.push_back(queue->download(*b));
    return result;
  }

  void TearDown() override { EXPECT_TRUE(backend->take_canary_violations().empty()); }
};

// Rows [begin, end) of a tensor whose first dim is the rows.
HostTensor rows_of(const HostTensor& t, std::int64_t begin, std::int64_t end) {
  std::vector<std::int64_t> dims = t.shape().dims();
  const std::int64_t width = t.numel() / dims[0];
  dims[0] = end - begin;
  HostTensor out(t.dtype(), Shape(dims));
  for (std::int64_t i = 0; i < out.numel(); ++i) out.set(i, t.get(begin * width + i));
  return out;
}

// A call of 4,197 rows of 1,000 elements, 2^22 + 2,696 (threaded: blocks of 2^18, one partial, blocks that start
// inside a row) against the same op on pieces of 1,000 rows (each below the threshold). A 16-bit
// call's staging (widened copies, outputs rounded back) runs in those blocks too.
void expect_same_as_pieces(CpuThreaded& t, OpKind op, const Shape& x_shape, const Shape& y_shape,
                           DType dtype = DType::f32) {
  const std::int64_t rows = x_shape[0], piece = 1000;
  std::vector<HostTensor> in = {CpuThreaded::random(x_shape, 1, dtype)};
  if (y_shape.rank() > 0) in.push_back(CpuThreaded::random(y_shape, 2, dtype));
  std::vector<Shape> shapes;
  for (const auto& h : in) shapes.push_back(h.shape());
  const OpCall whole = make_call(op, {}, dtype, shapes, "threaded whole");
  const HostTensor dy = CpuThreaded::random(whole.output_shape, 3, dtype);
  const std::vector<HostTensor> got = t.run(whole, in, dy);
  const bool broadcast = in.size() == 2 && in[1].numel() != in[0].numel();
  for (std::int64_t r = 0; r < rows; r += piece) {
    const std::int64_t end = std::min(rows, r + piece);
    std::vector<HostTensor> part_in = {rows_of(in[0], r, end)};
    if (in.size() == 2) part_in.push_back(broadcast ? in[1] : rows_of(in[1], r, end));
    std::vector<Shape> part_shapes;
    for (const auto& h : part_in) part_shapes.push_back(h.shape());
    const OpCall part = make_call(op, {}, dtype, part_shapes, "threaded piece");
    const std::vector<HostTensor> want = t.run(part, part_in, rows_of(dy, r, end));
    // The broadcast operand's gradient sums over every row: a serial sum, not compared by pieces.
    for (std::size_t k = 0; k < (broadcast ? 2 : want.size()); ++k) {
      const HostTensor have = rows_of(got[k], r, end);
      for (std::int64_t i = 0; i < have.numel(); ++i)
        ASSERT_EQ(have.get(i), want[k].get(i)) << op_name(op) << " " << dtype_name(dtype) << " tensor " << k << " row "
                                               << r + i / (have.numel() / (end - r));
    }
  }
}

TEST_F(CpuThreaded, LongElementwiseCallsEqualTheSameOpOnShortPieces) {
  const std::int64_t rows = ((std::int64_t{1} << 22) + 3000) / 1000;  // 4,197 rows of 1,000
  expect_same_as_pieces(*this, OpKind::tanh, Shape{rows, 1000}, Shape{});
  expect_same_as_pieces(*this, OpKind::mul, Shape{rows, 1000}, Shape{rows, 1000});
  expect_same_as_pieces(*this, OpKind::div, Shape{rows, 1000}, Shape{1000});
}

TEST_F(CpuThreaded, LongSixteenBitCallsAreStagedInBlocksAsOnePieceAtATime) {
  const std::int64_t rows = ((std::int64_t{1} << 22) + 3000) / 1000;
  expect_same_as_pieces(*this, OpKind::tanh, Shape{rows, 1000}, Shape{}, DType::bf16);
  expect_same_as_pieces(*this, OpKind::mul, Shape{rows, 1000}, Shape{rows, 1000}, DType::f16);
}

TEST_F(CpuThreaded, LargeProductsStayWithinAFewRoundingsOnEveryRow) {
  // 521 x 515 x 523: 1.4e8 multiply-adds, above the threshold, in nine blocks of rows of each
  // product (the last one partial).
  const std::int64_t m = 521, k = 515, n = 523;
  const HostTensor a = random(Shape{m, k}, 4), b = random(Shape{k, n}, 5), g = random(Shape{m, n}, 6);
  const std::vector<HostTensor> got =
      run(make_call(OpKind::matmul, {}, DType::f32, {a.shape(), b.shape()}, "threaded product"), {a, b}, g);
  const std::vector<double> A = a.to_doubles(), B = b.to_doubles(), G = g.to_doubles();
  // Each row of an [rows, cols] product C = X Y of `len` terms, projected on random v: C v against
  // X (Y v) in double. A correct f32 element errs by at most len roundings of the sum of its
  // terms' magnitudes, so a row errs by at most len u sum_p |X_ip| (|Y| |v|)_p (twice that
  // allowed); a row taken from other rows, or never written, is off by the size of its terms.
  auto expect_rows = [](const HostTensor& have, std::int64_t rows, std::int64_t cols, std::int64_t len, const auto& x,
                        const auto& y, const char* what) {
    const std::vector<double> c = have.to_doubles();
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> in_range(-1.0, 1.0);
    std::vector<double> v(static_cast<std::size_t>(cols)), yv(static_cast<std::size_t>(len), 0.0), yv_abs = yv;
    for (auto& e : v) e = in_range(rng);
    for (std::int64_t p = 0; p < len; ++p)
      for (std::int64_t j = 0; j < cols; ++j) {
        yv[static_cast<std::size_t>(p)] += y(p, j) * v[static_cast<std::size_t>(j)];
        yv_abs[static_cast<std::size_t>(p)] += std::abs(y(p, j) * v[static_cast<std::size_t>(j)]);
      }
    for (std::int64_t i = 0; i < rows; ++i) {
      double got = 0, want = 0, allowed = 0;
      for (std::int64_t j = 0; j < cols; ++j)
        got += c[static_cast<std::size_t>(i * cols + j)] * v[static_cast<std::size_t>(j)];
      for (std::int64_t p = 0; p < len; ++p) {
        want += x(i, p) * yv[static_cast<std::size_t>(p)];
        allowed += std::abs(x(i, p)) * yv_abs[static_cast<std::size_t>(p)];
      }
      ASSERT_LE(std::abs(got - want), 2.0 * static_cast<double>(len) * 0x1p-24 * allowed) << what << " row " << i;
    }
  };
  auto at = [](const std::vector<double>& v, std::int64_t cols) {
    return [&v, cols](std::int64_t r, std::int64_t c) { return v[static_cast<std::size_t>(r * cols + c)]; };
  };
  auto transposed = [](const std::vector<double>& v, std::int64_t cols) {
    return [&v, cols](std::int64_t r, std::int64_t c) { return v[static_cast<std::size_t>(c * cols + r)]; };
  };
  expect_rows(got[0], m, n, k, at(A, k), at(B, n), "A B");
  expect_rows(got[1], m, k, n, at(G, n), transposed(B, n), "G B^T");
  expect_rows(got[2], k, n, m, transposed(A, k), at(G, n), "A^T G");
}

}  // namespace
}  // namespace gp
