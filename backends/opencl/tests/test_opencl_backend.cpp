// OpenCL backend on the first device (PoCL in CI): hand-checked values per op family, storage
// dtypes, fp64, canaries, the program cache, errors and concurrent queues. Every op against the
// reference is the parity suite's (and test_backend_registry's) work.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "backends/registry.hpp"
#include "core/error.hpp"
#include "opencl_test_util.hpp"

namespace gp {
namespace {

using testutil::make_tensor;
using testutil::run_op;

class OpenclTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    backend = testutil::shared_opencl_backend(&why);
    if (!backend) GTEST_SKIP() << "no OpenCL device: " << why;
    queue = backend->create_queue();
  }
  OpCall call(OpKind k, DType dt, std::vector<Shape> shapes, OpAttrs a = {}) {
    return make_call(k, std::move(a), dt, std::move(shapes), std::string(op_name(k)) + "-test");
  }
  opencl::OpenclBackend* backend = nullptr;
  std::unique_ptr<Queue> queue;
};

TEST_F(OpenclTest, ExpForwardBackwardF32) {
  auto c = call(OpKind::exp, DType::f32, {Shape{7}});
  auto x = make_tensor(DType::f32, {7}, [](auto i) { return -3.0 + i; });
  auto g = make_tensor(DType::f32, {7}, [](auto i) { return 0.5 + i; });
  auto r = run_op(*backend, *queue, c, {x}, &g);
  for (int i = 0; i < 7; ++i) {
    double xv = x.get(i);
    EXPECT_NEAR(r.out.get(i), std::exp(xv), 4e-7 * std::exp(xv)) << i;
    EXPECT_NEAR(r.grads[0].get(i), g.get(i) * std::exp(xv), 4e-7 * g.get(i) * std::exp(xv)) << i;
  }
}

// bench's arithmetic probe (kernels/probe.cl): element i is the sum of 8 chains that start at
// (i mod 7) + k/8 and take steps/8 links of x -> fma(x, 0.999999, 1e-6) each; a kernel whose loop
// ran short would measure less work than bench counts.
TEST_F(OpenclTest, ArithmeticProbeRunsEveryLinkOfItsChains) {
  const int steps = 4096;
  for (DType dt : {DType::f32, DType::bf16}) {
    auto out = backend->allocate(dt, Shape{9});
    ASSERT_TRUE(queue->arithmetic_probe(*out, steps));
    const HostTensor got = queue->download(*out);
    const double a = double(0.999999f), b = double(1e-6f), grow = std::pow(a, steps / 8);
    const double add = b * (1 - grow) / (1 - a);
    for (std::int64_t i = 0; i < 9; ++i) {
      double want = 0;
      for (int k = 0; k < 8; ++k) want += (double(i % 7) + k / 8.0) * grow + add;
      EXPECT_NEAR(got.get(i), want, want * (dt == DType::bf16 ? 1e-2 : 1e-4)) << dtype_name(dt) << " " << i;
    }
  }
}

TEST_F(OpenclTest, BiasAddGradientIsTheBatchSum) {
  auto c = call(OpKind::add, DType::f32, {Shape{5, 3}, Shape{3}});
  auto x = make_tensor(DType::f32, {5, 3}, [](auto i) { return 0.25 * i; });
  auto b = make_tensor(DType::f32, {3}, [](auto i) { return 10.0 * (i + 1); });
  auto g = make_tensor(DType::f32, {5, 3}, [](auto i) { return 1.0 + i; });
  auto r = run_op(*backend, *queue, c, {x, b}, &g);
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(r.out.get(i), 0.25 * i + 10.0 * (i % 3 + 1));
    EXPECT_EQ(r.grads[0].get(i), 1.0 + i);
  }
  // db[j] = sum over rows of g[r, j] = sum_r (1 + 3r + j) = 5 + 30 + 5j
  for (int j = 0; j < 3; ++j) EXPECT_EQ(r.grads[1].get(j), 35.0 + 5 * j);
}

TEST_F(OpenclTest, OuterBroadcastMulGradients) {
  auto c = call(OpKind::mul, DType::f32, {Shape{3, 1}, Shape{1, 4}});
  auto a = make_tensor(DType::f32, {3, 1}, [](auto i) { return 1.0 + i; });
  auto b = make_tensor(DType::f32, {1, 4}, [](auto i) { return 2.0 - i; });
  auto g = make_tensor(DType::f32, {3, 4}, [](auto) { return 1.0; });
  auto r = run_op(*backend, *queue, c, {a, b}, &g);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(r.out.get(i * 4 + j), (1.0 + i) * (2.0 - j));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.grads[0].get(i), 2 + 1 + 0 - 1);  // sum_j b_j
  for (int j = 0; j < 4; ++j) EXPECT_EQ(r.grads[1].get(j), 1 + 2 + 3);      // sum_i a_i
}

// Inputs of one shape take the 64-bit same-shape kernels, also when one gradient is not asked
// for (it goes to scratch, and the one asked for is written).
TEST_F(OpenclTest, ASameShapeBackwardWritesTheOneGradientAskedFor) {
  const auto c = call(OpKind::div, DType::f32, {Shape{6}, Shape{6}});
  const auto a = make_tensor(DType::f32, {6}, [](auto i) { return 1.0 + i; });
  const auto b = make_tensor(DType::f32, {6}, [](auto i) { return 0.5 * (i + 1); });
  const auto g = make_tensor(DType::f32, {6}, [](auto i) { return i % 2 ? 2.0 : 1.0; });
  for (int asked : {0, 1}) {
    std::vector<std::unique_ptr<DeviceBuffer>> in;
    for (const HostTensor* t : {&a, &b}) {
      in.push_back(backend->allocate(DType::f32, t->shape()));
      queue->upload(*in.back(), *t);
    }
    auto out = backend->allocate(DType::f32, {6}), dout = backend->allocate(DType::f32, {6});
    auto grad = backend->allocate(DType::f32, {6});
    queue->upload(*dout, g);
    const DeviceBuffer* inputs[] = {in[0].get(), in[1].get()};
    queue->forward(c, inputs, *out);
    DeviceBuffer* grads[] = {asked == 0 ? grad.get() : nullptr, asked == 1 ? grad.get() : nullptr};
    queue->backward(c, inputs, *out, *dout, grads);
    const HostTensor got = queue->download(*grad);
    for (int i = 0; i < 6; ++i) {
      const double av = a.get(i), bv = b.get(i), gv = g.get(i);
      EXPECT_FLOAT_EQ(got.get(i), asked == 0 ? gv / bv : gv * (-(av / bv) / bv)) << asked << " " << i;
    }
  }
}

TEST_F(OpenclTest, ReductionsOverBothAxes) {
  auto x = make_tensor(DType::f32, {2, 3}, [](auto i) { return std::vector<double>{1, 5, 2, -1, 0, 4}[i]; });
  OpAttrs last;
  last.axis = -1;
  auto g = make_tensor(DType::f32, {2}, [](auto i) { return i == 0 ? 2.0 : 3.0; });
  auto r = run_op(*backend, *queue, call(OpKind::max, DType::f32, {Shape{2, 3}}, last), {x}, &g);
  EXPECT_EQ(r.out.get(0), 5.0);
  EXPECT_EQ(r.out.get(1), 4.0);
  std::vector<double> want{0, 2, 0, 0, 0, 3};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.grads[0].get(i), want[i]) << i;

  OpAttrs first;
  first.axis = 0;
  first.keepdim = true;
  first.correction = 1;
  auto g3 = make_tensor(DType::f32, {1, 3}, [](auto) { return 1.0; });
  auto v = run_op(*backend, *queue, call(OpKind::variance, DType::f32, {Shape{2, 3}}, first), {x}, &g3);
  // columns (1,-1), (5,0), (2,4): unbiased variances 2, 12.5, 2; gradient 2 (x - mean) / 1
  EXPECT_NEAR(v.out.get(0), 2.0, 1e-6);
  EXPECT_NEAR(v.out.get(1), 12.5, 1e-6);
  EXPECT_NEAR(v.out.get(2), 2.0, 1e-6);
  std::vector<double> dv{2, 5, -2, -2, -5, 2};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(v.grads[0].get(i), dv[i], 1e-6) << i;
}

TEST_F(OpenclTest, SoftmaxMatchesDoubleComputation) {
  const int rows = 3, n = 200;  // n > work-group size: items loop over the row
  auto x = make_tensor(DType::f32, {rows, n}, [](auto i) { return std::sin(0.37 * i) * 4; });
  auto g = make_tensor(DType::f32, {rows, n}, [](auto i) { return std::cos(0.11 * i); });
  auto r = run_op(*backend, *queue, call(OpKind::softmax, DType::f32, {Shape{rows, n}}), {x}, &g);
  for (int row = 0; row < rows; ++row) {
    double m = -1e300, s = 0, dot = 0;
    for (int j = 0; j < n; ++j) m = std::max(m, x.get(row * n + j));
    for (int j = 0; j < n; ++j) s += std::exp(x.get(row * n + j) - m);
    for (int j = 0; j < n; ++j) dot += g.get(row * n + j) * std::exp(x.get(row * n + j) - m) / s;
    for (int j = 0; j < n; ++j) {
      double p = std::exp(x.get(row * n + j) - m) / s;
      EXPECT_NEAR(r.out.get(row * n + j), p, 1e-6 * p + 1e-9);
      EXPECT_NEAR(r.grads[0].get(row * n + j), p * (g.get(row * n + j) - dot), 1e-6);
    }
  }
}

TEST_F(OpenclTest, MatmulAndLinearByHand) {
  auto a = make_tensor(DType::f32, {2, 3}, [](auto i) { return 1.0 + i; });  // [[1,2,3],[4,5,6]]
  auto b = make_tensor(DType::f32, {3, 2}, [](auto i) { return i - 2.0; });  // [[-2,-1],[0,1],[2,3]]
  auto g = make_tensor(DType::f32, {2, 2}, [](auto i) { return i == 0 ? 1.0 : 0.0; });
  auto r = run_op(*backend, *queue, call(OpKind::matmul, DType::f32, {Shape{2, 3}, Shape{3, 2}}), {a, b}, &g);
  std::vector<double> y{4, 10, 4, 19};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.out.get(i), y[i]);
  // dA = G B^T = row 0 gets b[:,0]; dB = A^T G = column 0 gets a[0,:]
  std::vector<double> da{-2, 0, 2, 0, 0, 0}, db{1, 0, 2, 0, 3, 0};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(r.grads[0].get(i), da[i]);
    EXPECT_EQ(r.grads[1].get(i), db[i]);
  }
  auto w = make_tensor(DType::f32, {2, 3}, [](auto i) { return i == 4 ? 1.0 : 0.0; });  // picks x[:,1]
  auto bias = make_tensor(DType::f32, {2}, [](auto i) { return 100.0 * i; });
  auto gl = make_tensor(DType::f32, {2, 2}, [](auto i) { return 1.0; });
  auto l = run_op(*backend, *queue, call(OpKind::linear, DType::f32, {Shape{2, 3}, Shape{2, 3}, Shape{2}}),
                  {a, w, bias}, &gl);
  std::vector<double> ly{0, 102, 0, 105};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(l.out.get(i), ly[i]);
  for (int j = 0; j < 2; ++j) EXPECT_EQ(l.grads[2].get(j), 2.0);  // bias gradient: batch sum
  std::vector<double> dw{5, 7, 9, 5, 7, 9};                       // G^T x
  for (int i = 0; i < 6; ++i) EXPECT_EQ(l.grads[1].get(i), dw[i]);
}

TEST_F(OpenclTest, SliceBackwardScattersIntoZeros) {
  OpAttrs s;
  s.axis = 1;
  s.start = 1;
  s.stop = 6;
  s.step = 2;  // columns 1, 3, 5
  auto x = make_tensor(DType::f32, {2, 6}, [](auto i) { return i; });
  auto g = make_tensor(DType::f32, {2, 3}, [](auto i) { return 10.0 + i; });
  auto r = run_op(*backend, *queue, call(OpKind::slice, DType::f32, {Shape{2, 6}}, s), {x}, &g);
  std::vector<double> y{1, 3, 5, 7, 9, 11}, dx{0, 10, 0, 11, 0, 12, 0, 13, 0, 14, 0, 15};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.out.get(i), y[i]);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(r.grads[0].get(i), dx[i]);
}

TEST_F(OpenclTest, CrossEntropyByHand) {
  auto x = make_tensor(DType::f32, {2, 3}, [](auto i) { return std::vector<double>{0, 1, 2, 3, 3, 3}[i]; });
  auto t = make_tensor(DType::i32, {2}, [](auto i) { return i == 0 ? 2.0 : 0.0; });
  auto g = make_tensor(DType::f32, {}, [](auto) { return 1.0; });
  auto r = run_op(*backend, *queue, call(OpKind::cross_entropy, DType::f32, {Shape{2, 3}, Shape{2}}), {x, t}, &g);
  double lse0 = std::log(1 + std::exp(1.0) + std::exp(2.0)) - 2.0, lse1 = std::log(3.0);
  EXPECT_NEAR(r.out.get(0), (lse0 + lse1) / 2, 1e-6);
  EXPECT_FALSE(r.has_grad[1]);
  EXPECT_NEAR(r.grads[0].get(3), (1.0 / 3 - 1) / 2, 1e-7);
  EXPECT_NEAR(r.grads[0].get(4), (1.0 / 3) / 2, 1e-7);
}

// f16 / bf16 are storage types: f32 arithmetic, one correct rounding on store. exp in f32 is
// within 3 f32 ULP, so the stored result is within 1 ULP of the correctly rounded value.
TEST_F(OpenclTest, SixteenBitStorage) {
  for (DType dt : {DType::f16, DType::bf16}) {
    auto c = call(OpKind::exp, dt, {Shape{127}});
    auto x = make_tensor(dt, {127}, [](auto i) { return -4.0 + i / 16.0; });
    auto g = make_tensor(dt, {127}, [](auto) { return 1.0; });
    auto r = run_op(*backend, *queue, c, {x}, &g);
    for (int i = 0; i < 127; ++i) {
      double want = std::exp(x.get(i));
      EXPECT_LE(ulp_distance(dt, r.out.get(i), round_to(dt, want)), 1.0) << dtype_name(dt) << " " << i;
      EXPECT_LE(ulp_distance(dt, r.grads[0].get(i), round_to(dt, want)), 1.0) << dtype_name(dt) << " " << i;
    }
    // A reduction and a matmul accumulate in f32 and round once.
    auto a = make_tensor(dt, {7, 33}, [](auto i) { return std::sin(0.3 * i); });
    auto b = make_tensor(dt, {33, 5}, [](auto i) { return std::cos(0.7 * i); });
    auto m = run_op(*backend, *queue, call(OpKind::matmul, dt, {Shape{7, 33}, Shape{33, 5}}), {a, b}, nullptr);
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 5; ++j) {
        double want = 0, mag = 0;
        for (int k = 0; k < 33; ++k) {
          want += a.get(i * 33 + k) * b.get(k * 5 + j);
          mag += std::fabs(a.get(i * 33 + k) * b.get(k * 5 + j));
        }
        EXPECT_NEAR(m.out.get(i * 5 + j), want, unit_roundoff(dt) * std::fabs(want) + 33 * 6e-8 * mag);
      }
  }
}

TEST_F(OpenclTest, Float64IsComputedInDouble) {
  if (!backend->supports(call(OpKind::exp, DType::f64, {Shape{7}})).ok) GTEST_SKIP() << "device lacks cl_khr_fp64";
  auto x = make_tensor(DType::f64, {64}, [](auto i) { return -3.0 + 0.1 * i; });
  auto g = make_tensor(DType::f64, {64}, [](auto) { return 1.0; });
  auto r = run_op(*backend, *queue, call(OpKind::sigmoid, DType::f64, {Shape{64}}), {x}, &g);
  for (int i = 0; i < 64; ++i) {
    double s = 1 / (1 + std::exp(-x.get(i)));
    EXPECT_NEAR(r.out.get(i), s, 1e-15);  // an f32 kernel would be ~1e-8 off
    EXPECT_NEAR(r.grads[0].get(i), s * (1 - s), 1e-15);
  }
}

TEST_F(OpenclTest, CanaryCatchesAnOutOfBoundsWrite) {
  // A small buffer's guards are read with its data in one read, a large one's by two.
  for (std::int64_t n : {10, 20000}) {
    SCOPED_TRACE(n);
    auto c = call(OpKind::neg, DType::f32, {Shape{n}});
    auto x = make_tensor(DType::f32, {n}, [](auto i) { return i; });
    backend->take_canary_violations();
    run_op(*backend, *queue, c, {x}, nullptr);
    EXPECT_TRUE(backend->take_canary_violations().empty());
    opencl::testing::unary_overrun_elements = 3;  // the kernel writes 3 floats past the end
    run_op(*backend, *queue, c, {x}, nullptr);
    opencl::testing::unary_overrun_elements = 0;
    auto v = backend->take_canary_violations();
    ASSERT_EQ(v.size(), 1u);
    EXPECT_NE(v[0].find("after the data"), std::string::npos) << v[0];
    // neg of the input's guard bytes: the bytes that change lie in [4n, 4n + 12).
    std::smatch offsets;
    ASSERT_TRUE(std::regex_search(v[0], offsets, std::regex(" at offsets (\\d+)\\.\\.(\\d+);"))) << v[0];
    EXPECT_GE(std::stoll(offsets[1]), 4 * n) << v[0];
    EXPECT_EQ(std::stoll(offsets[2]), 4 * n + 11) << v[0];
    EXPECT_NE(v[0].find("neg-test"), std::string::npos) << v[0];
    run_op(*backend, *queue, c, {x}, nullptr);
    EXPECT_TRUE(backend->take_canary_violations().empty());
  }
}

// download_all reads every buffer with one wait, and checks the guards of what the calls wrote.
TEST_F(OpenclTest, DownloadAllReadsEveryBufferAndChecksTheGuards) {
  const std::int64_t n = 10;
  auto c = call(OpKind::neg, DType::f32, {Shape{n}});
  auto x = backend->allocate(DType::f32, Shape{n});
  queue->upload(*x, make_tensor(DType::f32, {n}, [](auto i) { return 1.0 + i; }));
  auto first = backend->allocate(DType::f32, Shape{n});
  auto second = backend->allocate(DType::f32, Shape{n});
  const DeviceBuffer* in[] = {x.get()};
  backend->take_canary_violations();
  opencl::testing::unary_overrun_elements = 3;
  queue->forward(c, in, *first);
  opencl::testing::unary_overrun_elements = 0;
  queue->forward(c, in, *second);
  const DeviceBuffer* both[] = {first.get(), second.get()};
  const std::vector<HostTensor> back = queue->download_all(both);
  ASSERT_EQ(back.size(), 2u);
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(back[0].get(i), -1.0 - static_cast<double>(i));
    EXPECT_EQ(back[1].get(i), -1.0 - static_cast<double>(i));
  }
  EXPECT_EQ(backend->take_canary_violations().size(), 1u);
}

// upload() does not wait for the write, so it keeps its own copy of the source: the caller may
// change or free the source as soon as upload returns, while the write still waits behind the
// kernels enqueued before it.
TEST_F(OpenclTest, AnUploadDoesNotReadItsSourceLater) {
  const std::int64_t n = 256;
  auto mm = call(OpKind::matmul, DType::f32, {Shape{n, n}, Shape{n, n}});
  auto ones = make_tensor(DType::f32, {n, n}, [](auto) { return 1.0; });
  auto a = backend->allocate(DType::f32, Shape{n, n});
  auto product = backend->allocate(DType::f32, Shape{n, n});
  queue->upload(*a, ones);
  const DeviceBuffer* in[] = {a.get(), a.get()};
  for (int i = 0; i < 8; ++i) queue->forward(mm, in, *product);  // keeps the queue busy
  auto dst = backend->allocate(DType::f32, Shape{4096});
  HostTensor src = make_tensor(DType::f32, {4096}, [](auto) { return 1.0; });
  queue->upload(*dst, src);
  for (std::int64_t i = 0; i < src.numel(); ++i) src.set(i, 9.0);
  const HostTensor back = queue->download(*dst);
  for (std::int64_t i = 0; i < back.numel(); ++i) ASSERT_EQ(back.get(i), 1.0) << i;
}

TEST_F(OpenclTest, UnwrittenOutputsAreNaN) {
  // Fresh buffers are filled with NaN bytes, so an element a kernel forgets shows in results.
  auto buf = backend->allocate(DType::f32, Shape{5});
  HostTensor t = queue->download(*buf);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(std::isnan(t.get(i)));
}

TEST_F(OpenclTest, ReusedBuffersAreNaNAgain) {
  // A released buffer's memory serves the next buffer of its size: it must not show the values
  // of the buffer before.
  {
    auto first = backend->allocate(DType::f32, Shape{5});
    queue->upload(*first, make_tensor(DType::f32, {5}, [](auto i) { return 1.0 + i; }));
    queue->finish();
  }
  auto second = backend->allocate(DType::f32, Shape{5});
  HostTensor t = queue->download(*second);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(std::isnan(t.get(i))) << "element " << i << " is " << t.get(i);
}

TEST_F(OpenclTest, ErrorsAreTyped) {
  auto buf = backend->allocate(DType::f32, Shape{4});
  HostTensor wrong(DType::f32, Shape{5});
  EXPECT_THROW(queue->upload(*buf, wrong), Error);
  try {
    backend->allocate(DType::f32, Shape{std::int64_t{1} << 40});  // 4 TiB
    FAIL() << "a 4 TiB buffer was allocated";
  } catch (const OutOfMemory& e) {
    EXPECT_FALSE(e.api_call().empty());
    EXPECT_EQ(e.error_name().rfind("CL_", 0), 0u) << e.what();
  }
  // The wrong number of inputs is a usage error that names the case.
  auto c = call(OpKind::add, DType::f32, {Shape{4}, Shape{4}});
  std::vector<const DeviceBuffer*> one{buf.get()};
  auto out = backend->allocate(DType::f32, Shape{4});
  try {
    queue->forward(c, one, *out);
    FAIL() << "forward accepted one input for add";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("add-test"), std::string::npos) << e.what();
  }
}

// Device timers: the last call's kernels (benchmarks), and for the run's profile every kernel of
// every call since the last take, each counted once.
TEST_F(OpenclTest, DeviceTimersReportTheLastCallAndCountEveryCallOnce) {
  auto c = call(OpKind::exp, DType::f32, {Shape{4096}});
  auto x = make_tensor(DType::f32, {4096}, [](auto i) { return 0.001 * i; });
  auto in = backend->allocate(DType::f32, Shape{4096});
  auto out = backend->allocate(DType::f32, Shape{4096});
  queue->upload(*in, x);
  std::vector<const DeviceBuffer*> ins{in.get()};
  queue->take_device_seconds();
  queue->forward(c, ins, *out);
  auto* oq = dynamic_cast<opencl::OpenclQueue*>(queue.get());
  ASSERT_NE(oq, nullptr);
  EXPECT_GT(oq->last_device_time_ns(), 0u);
  const double one = static_cast<double>(oq->last_device_time_ns()) * 1e-9;
  queue->forward(c, ins, *out);  // the first call's kernels move to the pending count here
  const double two = one + static_cast<double>(oq->last_device_time_ns()) * 1e-9;
  queue->download(*out);
  const std::optional<double> taken = queue->take_device_seconds();
  ASSERT_TRUE(taken.has_value());
  EXPECT_GT(*taken, 0.0);
  EXPECT_NEAR(*taken, two, 1e-9);
  EXPECT_EQ(queue->take_device_seconds(), 0.0);  // nothing ran since
}

TEST_F(OpenclTest, QueuesOnManyThreadsAgree) {
  // One backend, one queue per thread: results must be bitwise those of a single thread.
  auto c = call(OpKind::softmax, DType::f32, {Shape{16, 33}});
  auto x = make_tensor(DType::f32, {16, 33}, [](auto i) { return std::sin(0.1 * i); });
  auto g = make_tensor(DType::f32, {16, 33}, [](auto i) { return std::cos(0.2 * i); });
  auto want = run_op(*backend, *queue, c, {x}, &g);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      auto q = backend->create_queue();
      for (int it = 0; it < 25; ++it) {
        auto r = run_op(*backend, *q, c, {x}, &g);
        for (int i = 0; i < 16 * 33; ++i)
          if (r.out.get(i) != want.out.get(i) || r.grads[0].get(i) != want.grads[0].get(i)) ++mismatches;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_TRUE(backend->take_canary_violations().empty());
}

TEST(OpenclProvider, DiscoversDevicesAndNeverThrows) {
  auto p = make_opencl_provider();
  EXPECT_EQ(p.name, "opencl");
  auto entries = p.discover({});
  ASSERT_FALSE(entries.empty());
  if (!entries[0].create) GTEST_SKIP() << entries[0].unavailable;
  EXPECT_FALSE(entries[0].info.name.empty());
  EXPECT_FALSE(entries[0].info.driver.empty());
  auto dev = select_devices({"opencl:0"}, {});
  ASSERT_EQ(dev.size(), 1u);
  EXPECT_EQ(dev[0].id, "opencl:0");
}

// The binary cache, on a tiny stand-in program (capturing the binary of the real program makes
// PoCL compile every kernel, which is slow on a CPU); the mechanism is the same code.
class OpenclCache : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testutil::shared_opencl_backend(&why)) GTEST_SKIP() << "no OpenCL device: " << why;
    dir = std::filesystem::temp_directory_path() / ("gp-ocl-cache-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    opts.cache_dir = dir.string();
    opencl::testing::program_source_override =
        "__kernel void tiny(__global float* x) { x[get_global_id(0)] *= 2.0f; } // " + std::to_string(::getpid());
    opencl::testing::force_binary_cache = true;
  }
  void TearDown() override {
    opencl::testing::program_source_override.clear();
    opencl::testing::force_binary_cache = false;
    std::filesystem::remove_all(dir);
  }
  opencl::ProgramStats build_once() {
    auto be = opencl::create_backend(0, opts);
    be->warm_up(DType::f32);
    return be->program_stats();
  }
  std::vector<std::filesystem::path> entries() {
    std::vector<std::filesystem::path> v;
    for (auto& e : std::filesystem::directory_iterator(dir / "opencl")) v.push_back(e.path());
    return v;
  }
  std::filesystem::path dir;
  BackendOptions opts;
};

TEST_F(OpenclCache, SecondInstanceLoadsFromCache) {
  auto first = build_once();
  EXPECT_EQ(first.built_from_source, 1);
  EXPECT_EQ(first.loaded_from_cache, 0);
  ASSERT_EQ(entries().size(), 1u);  // one entry, no temporary files left behind
  auto second = build_once();
  EXPECT_EQ(second.built_from_source, 0);
  EXPECT_EQ(second.loaded_from_cache, 1);
  EXPECT_EQ(second.cache_rejected, 0);
}

TEST_F(OpenclCache, CorruptEntryIsRebuiltNotTrusted) {
  build_once();
  auto files = entries();
  ASSERT_EQ(files.size(), 1u);
  {  // flip one byte of the payload (the last byte of the file)
    std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    char ch = 0;
    f.read(&ch, 1);
    ch = static_cast<char>(ch ^ 0x5A);
    f.seekp(-1, std::ios::end);
    f.write(&ch, 1);
  }
  auto rebuilt = build_once();
  EXPECT_EQ(rebuilt.cache_rejected, 1);
  EXPECT_EQ(rebuilt.built_from_source, 1);
  auto again = build_once();  // the rebuild rewrote the entry
  EXPECT_EQ(again.loaded_from_cache, 1);
  EXPECT_EQ(again.cache_rejected, 0);
  // A truncated file is rejected as well.
  std::filesystem::resize_file(entries()[0], 20);
  EXPECT_EQ(build_once().cache_rejected, 1);
}

}  // namespace
}  // namespace gp
