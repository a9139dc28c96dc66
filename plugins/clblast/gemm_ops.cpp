#include "gemm_ops.hpp"

#include <clblast.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "status.hpp"

namespace gp_clblast {

namespace {

using clblast::Layout;
using clblast::Transpose;

bool is(const gp_op_call& call, const char* op) { return std::strcmp(call.op, op) == 0; }

// Sizes of either op: linear is a matmul of x[m,k] with Wᵀ[k,n] and one batch.
struct Sizes {
  std::size_t batch, m, k, n;
};

Sizes sizes(const gp_op_call& call) {
  const gp_tensor_desc& a = call.inputs[0];
  const gp_tensor_desc& b = call.inputs[1];
  const auto at = [](const gp_tensor_desc& t, int from_end) { return std::size_t(t.dims[t.rank - from_end]); };
  if (is(call, "linear")) return {1, at(a, 2), at(a, 1), at(b, 2)};
  return {a.rank == 3 ? std::size_t(a.dims[0]) : 1, at(a, 2), at(a, 1), at(b, 1)};
}

// A row-major matrix of `rows` x `cols` in a buffer (one per batch, `stride` elements apart), used
// as it is or transposed in a product.
struct Operand {
  cl_mem memory;
  std::size_t rows, cols, stride;
  bool transposed = false;

  Operand t() const {
    Operand o = *this;
    o.transposed = !transposed;
    return o;
  }
  Transpose transpose() const { return transposed ? Transpose::kYes : Transpose::kNo; }
  std::size_t ld() const { return cols; }
};

Operand matrix(const gp_buffer* buffer, std::size_t rows, std::size_t cols, std::size_t batches = 1) {
  return {buffer->memory.get(), rows, cols, batches > 1 ? rows * cols : 0};
}

// c = a·b + beta·c over `batch` batches: Gemm for one, GemmStridedBatched for several.
template <class T>
void gemm(gp_queue& q, std::size_t batch, const Operand& a, const Operand& b, T beta, const Operand& c) {
  const std::size_t m = c.rows, n = c.cols, k = a.transposed ? a.rows : a.cols;
  if (batch == 1) {
    check(clblast::Gemm<T>(Layout::kRowMajor, a.transpose(), b.transpose(), m, n, k, T(1), a.memory, 0, a.ld(),
                           b.memory, 0, b.ld(), beta, c.memory, 0, c.ld(), q.queue.address()),
          "clblast::Gemm");
    return;
  }
  check(clblast::GemmStridedBatched<T>(Layout::kRowMajor, a.transpose(), b.transpose(), m, n, k, T(1), a.memory, 0,
                                       a.ld(), a.stride, b.memory, 0, b.ld(), b.stride, beta, c.memory, 0, c.ld(),
                                       c.stride, batch, q.queue.address()),
        "clblast::GemmStridedBatched");
}

template <class T>
void forward_as(gp_queue& q, const gp_op_call& call, const gp_buffer* const* in, gp_buffer& out) {
  const Sizes s = sizes(call);
  const Operand a = matrix(in[0], s.m, s.k, s.batch), y = matrix(&out, s.m, s.n, s.batch);
  if (is(call, "matmul")) return gemm<T>(q, s.batch, a, matrix(in[1], s.k, s.n, s.batch), T(0), y);
  const Operand ones{q.device->ones<T>(q.queue.get(), s.m), s.m, 1, 0};
  gemm<T>(q, 1, ones, matrix(in[2], 1, s.n), T(0), y);  // y[i,j] = b[j]
  gemm<T>(q, 1, a, matrix(in[1], s.n, s.k).t(), T(1), y);
}

// CLBlast's GEMV computes y = alpha·A x + beta·y with the old y read even when beta is 0, so a
// NaN or Inf left in y survives (0·NaN = NaN), where BLAS says y need not be set on input
// (docs/plugins-clblast.md). Its output is therefore zeroed first; GP_CLBLAST_RAW_GEMV=1 leaves
// that out, to see whether a CLBlast version still has the behaviour.
bool raw_gemv() {
  static const bool raw = [] {
    const char* v = std::getenv("GP_CLBLAST_RAW_GEMV");
    return v && std::strcmp(v, "1") == 0;
  }();
  return raw;
}

void zero(gp_queue& q, const gp_buffer& buffer, std::size_t bytes) {
  const unsigned char zero_byte = 0;  // +0.0 in either dtype is all zero bytes
  check(clEnqueueFillBuffer(q.queue.get(), buffer.memory.get(), &zero_byte, 1, 0, bytes, 0, nullptr, nullptr),
        "clEnqueueFillBuffer");
}

template <class T>
void vjp_as(gp_queue& q, const gp_op_call& call, const gp_buffer* const* in, const gp_buffer& dout,
            gp_buffer* const* grads) {
  const Sizes s = sizes(call);
  const bool linear = is(call, "linear");
  const Operand a = matrix(in[0], s.m, s.k, s.batch), g = matrix(&dout, s.m, s.n, s.batch);
  // matmul's B is [k,n]; linear's W is [n,k], the transpose of the B it multiplies by.
  const Operand b = linear ? matrix(in[1], s.n, s.k).t() : matrix(in[1], s.k, s.n, s.batch);
  if (grads[0]) gemm<T>(q, s.batch, g, b.t(), T(0), matrix(grads[0], s.m, s.k, s.batch));
  if (grads[1] && linear) gemm<T>(q, 1, g.t(), a, T(0), matrix(grads[1], s.n, s.k));
  if (grads[1] && !linear) gemm<T>(q, s.batch, a.t(), g, T(0), matrix(grads[1], s.k, s.n, s.batch));
  if (linear && grads[2]) {  // db = dYᵀ 1: column sums
    if (!raw_gemv()) zero(q, *grads[2], s.n * sizeof(T));
    check(clblast::Gemv<T>(Layout::kRowMajor, Transpose::kYes, s.m, s.n, T(1), g.memory, 0, s.n,
                           q.device->ones<T>(q.queue.get(), s.m), 0, 1, T(0), grads[2]->memory.get(), 0, 1,
                           q.queue.address()),
          "clblast::Gemv");
  }
}

// Why a matmul or linear call breaks the op's shape rule (core/README.md: the plugin links nothing
// of gradparity's), or empty: the input count, every tensor's dtype, ranks, inner and batch sizes,
// the bias, the output shape. Checked before `sizes` or a GEMM reads a dim (docs/invalid-calls.md).
std::string shape_rule_problem(const gp_op_call& call) {
  const bool linear = is(call, "linear");
  const int32_t arity = linear ? 3 : 2;
  if (call.input_count != arity) return std::string(call.op) + " takes " + std::to_string(arity) + " inputs";
  for (int32_t k = 0; k < arity; ++k)
    if (call.inputs[k].dtype != call.dtype) return "input " + std::to_string(k) + " is not of the call's dtype";
  const gp_tensor_desc &a = call.inputs[0], &b = call.inputs[1];
  const int32_t r = a.rank;
  if (linear ? (r != 2 || b.rank != 2 || call.inputs[2].rank != 1) : (r < 2 || r > 3 || b.rank != r))
    return std::string(call.op) + " of these ranks is not mapped onto GEMM";
  const int64_t inner = linear ? b.dims[1] : b.dims[r - 2], n = linear ? b.dims[0] : b.dims[r - 1];
  if (a.dims[r - 1] != inner) return "inner sizes differ";
  if (!linear && r == 3 && a.dims[0] != b.dims[0]) return "batch sizes differ";
  if (linear && call.inputs[2].dims[0] != n) return "the bias is not [out]";
  bool out_ok = call.output.rank == r && call.output.dims[r - 1] == n;
  for (int32_t i = 0; out_ok && i < r - 1; ++i) out_ok = call.output.dims[i] == a.dims[i];
  return out_ok ? std::string() : "the output shape is not the shape rule's";
}

}  // namespace

// CLBlast 1.5.3 returns kInvalidDimension for a GEMM with M, N or K of 0 and kInvalidBatchCount
// for a batch of 0 (its argument checks), where a BLAS would return at once.
bool has_zero_dimension(const gp_op_call& call) {
  for (int32_t k = 0; k < call.input_count; ++k)
    for (int32_t i = 0; i < call.inputs[k].rank; ++i)
      if (call.inputs[k].dims[i] == 0) return true;
  return false;
}

bool runs(const gp_op_call& call, std::string& why) {
  if (!is(call, "matmul") && !is(call, "linear")) return false;
  why = shape_rule_problem(call);
  if (!why.empty()) {
    why = std::string(call.op) + ": " + why;
    return false;
  }
  if (has_zero_dimension(call)) {
    why = "CLBlast refuses a GEMM with a zero dimension (kInvalidDimension)";
    return false;
  }
  return true;
}

void forward(gp_queue& q, const gp_op_call& call, const gp_buffer* const* inputs, gp_buffer& out) {
  if (call.dtype == GP_DTYPE_F64) return forward_as<double>(q, call, inputs, out);
  forward_as<float>(q, call, inputs, out);
}

void vjp(gp_queue& q, const gp_op_call& call, const gp_buffer* const* inputs, const gp_buffer& dout,
         gp_buffer* const* grads) {
  if (call.dtype == GP_DTYPE_F64) return vjp_as<double>(q, call, inputs, dout, grads);
  vjp_as<float>(q, call, inputs, dout, grads);
}

}  // namespace gp_clblast
