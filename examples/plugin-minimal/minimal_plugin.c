/* A minimal gradparity plugin in plain C: exp, add (NumPy broadcasting) and matmul (optionally
 * batched), forward and VJP, in f32 and f64, on host memory. Every other op answers
 * GP_UNSUPPORTED. README.md walks through it; docs/plugins.md describes the ABI. */
#include <gradparity/plugin.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Commands run synchronously on the calling thread and keep no shared state, so every function
 * may be called from any thread (GP_THREADS_FULL); the error text is therefore per thread. */
static _Thread_local char error_text[256];

static gp_status fail(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(error_text, sizeof error_text, fmt, args);
  va_end(args);
  return GP_ERROR;
}

struct gp_device {
  int index;
};
struct gp_queue {
  gp_device* device;
};
struct gp_buffer {
  int64_t bytes;
  double data[]; /* aligned for either dtype */
};

static int32_t device_count(void) { return 1; }

static gp_status device_info(int32_t index, gp_device_info* out) {
  if (index != 0) return fail("no device %d", (int)index);
  out->name = "host CPU (plugin-minimal)";
  out->driver = "C99 loops";
  out->api_version = "plugin ABI 1";
  out->dtypes = GP_DTYPE_BIT(GP_DTYPE_F32) | GP_DTYPE_BIT(GP_DTYPE_F64);
  out->may_flush_subnormals = 0;
  out->math_profile = "cpu"; /* exp and expf are glibc's: the built-in cpu backend's profile */
  out->notes = "naive loops, sequential sums";
  return GP_OK;
}

static gp_status open_device(int32_t index, gp_device** out) {
  if (index != 0) return fail("no device %d", (int)index);
  *out = malloc(sizeof **out);
  if (!*out) return fail("out of host memory");
  (*out)->index = index;
  return GP_OK;
}

static void close_device(gp_device* device) { free(device); }

static int is_op(const gp_op_call* call, const char* name) { return strcmp(call->op, name) == 0; }

/* The output dims the shape rule gives for the inputs (core/README.md), or 0 with the reason. */
static int rule_output(const gp_op_call* c, gp_tensor_desc* want, char* reason, size_t size) {
  const gp_tensor_desc *a = &c->inputs[0], *b = c->input_count > 1 ? &c->inputs[1] : NULL;
  *want = *a;
  if (is_op(c, "add")) { /* NumPy broadcasting, dims aligned on the right */
    want->rank = a->rank > b->rank ? a->rank : b->rank;
    for (int32_t d = want->rank - 1, i = a->rank - 1, j = b->rank - 1; d >= 0; --d, --i, --j) {
      const int64_t x = i >= 0 ? a->dims[i] : 1, y = j >= 0 ? b->dims[j] : 1;
      if (x != y && x != 1 && y != 1) return snprintf(reason, size, "add: the inputs do not broadcast"), 0;
      want->dims[d] = x == 1 ? y : x;
    }
  }
  if (is_op(c, "matmul")) { /* [B?, m, k] x [B?, k, n] */
    const int32_t r = a->rank;
    if (r < 2 || r > 3 || b->rank != r) return snprintf(reason, size, "matmul: operands of rank 2 or 3 alike"), 0;
    if (a->dims[r - 1] != b->dims[r - 2]) return snprintf(reason, size, "matmul: inner sizes differ"), 0;
    if (r == 3 && a->dims[0] != b->dims[0]) return snprintf(reason, size, "matmul: batch sizes differ"), 0;
    want->dims[r - 1] = b->dims[r - 1];
  }
  return 1;
}

/* A call the catalog refuses is refused here, never run (docs/invalid-calls.md): the kernels
 * below trust the counts, dtypes and dims they are given. */
static int refused_call(const gp_op_call* c, char* reason, size_t size) {
  const int32_t arity = is_op(c, "exp") ? 1 : 2;
  if (c->input_count != arity) return snprintf(reason, size, "%s takes %d input(s)", c->op, (int)arity), 1;
  for (int32_t k = 0; k < arity; ++k)
    if (c->inputs[k].dtype != c->dtype) return snprintf(reason, size, "input %d has another dtype", (int)k), 1;
  gp_tensor_desc want;
  if (!rule_output(c, &want, reason, size)) return 1;
  int same = c->output.rank == want.rank;
  for (int32_t d = 0; same && d < want.rank; ++d) same = c->output.dims[d] == want.dims[d];
  if (!same) return snprintf(reason, size, "%s: the output shape is not the shape rule's", c->op), 1;
  return 0;
}

static gp_status supports(gp_device* device, const gp_op_call* call, char* reason, size_t size) {
  (void)device;
  if (!is_op(call, "exp") && !is_op(call, "add") && !is_op(call, "matmul")) return GP_UNSUPPORTED;
  if (call->dtype != GP_DTYPE_F32 && call->dtype != GP_DTYPE_F64) {
    snprintf(reason, size, "%s in f32 and f64 only", call->op);
    return GP_UNSUPPORTED;
  }
  return refused_call(call, reason, size) ? GP_UNSUPPORTED : GP_OK;
}

static gp_status allocate(gp_device* device, gp_dtype dtype, int64_t bytes, gp_buffer** out) {
  (void)device, (void)dtype;
  *out = malloc(sizeof **out + (size_t)bytes);
  if (!*out) return fail("cannot allocate %lld bytes", (long long)bytes);
  (*out)->bytes = bytes;
  return GP_OK;
}

static void free_buffer(gp_device* device, gp_buffer* buffer) { (void)device, free(buffer); }

static gp_status create_queue(gp_device* device, gp_queue** out) {
  *out = malloc(sizeof **out);
  if (!*out) return fail("out of host memory");
  (*out)->device = device;
  return GP_OK;
}

static void destroy_queue(gp_device* device, gp_queue* queue) { (void)device, free(queue); }

static gp_status copy(void* dst, const void* src, int64_t bytes, int64_t capacity, const char* what) {
  if (bytes > capacity)
    return fail("%s of %lld bytes into a buffer of %lld", what, (long long)bytes, (long long)capacity);
  memcpy(dst, src, (size_t)bytes);
  return GP_OK;
}

static gp_status upload(gp_queue* q, gp_buffer* dst, const void* src, int64_t bytes) {
  (void)q;
  return copy(dst->data, src, bytes, dst->bytes, "upload");
}

static gp_status download(gp_queue* q, const gp_buffer* src, void* dst, int64_t bytes) {
  (void)q;
  return copy(dst, src->data, bytes, src->bytes, "download");
}

static int64_t numel(const gp_tensor_desc* t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->rank; ++i) n *= t->dims[i];
  return n;
}

/* Broadcasting: input t's element offset for output element `linear` (dims aligned on the right,
 * a dimension of size 1 repeated). */
static int64_t broadcast_index(const gp_tensor_desc* out, const gp_tensor_desc* t, int64_t linear) {
  int64_t index = 0, stride = 1;
  for (int32_t d = out->rank - 1, e = t->rank - 1; d >= 0; --d, --e) {
    const int64_t i = linear % out->dims[d];
    linear /= out->dims[d];
    if (e < 0) continue;
    if (t->dims[e] != 1) index += i * stride;
    stride *= t->dims[e];
  }
  return index;
}

/* matmul [B?, m, k] x [B?, k, n] */
typedef struct {
  int64_t batch, m, k, n;
} dims3;

static dims3 matmul_dims(const gp_op_call* c) {
  const gp_tensor_desc* a = &c->inputs[0];
  const gp_tensor_desc* b = &c->inputs[1];
  dims3 d = {a->rank == 3 ? a->dims[0] : 1, a->dims[a->rank - 2], a->dims[a->rank - 1], b->dims[b->rank - 1]};
  return d;
}

/* One definition of the kernels per element type T, with its exp. */
#define DEFINE_KERNELS(T, EXP)                                                                                        \
  static void forward_##T(const gp_op_call* c, const T* x, const T* y, T* out) {                                      \
    const int64_t n = numel(&c->output);                                                                              \
    if (is_op(c, "exp"))                                                                                              \
      for (int64_t i = 0; i < n; ++i) out[i] = EXP(x[i]);                                                             \
    if (is_op(c, "add"))                                                                                              \
      for (int64_t i = 0; i < n; ++i)                                                                                 \
        out[i] = x[broadcast_index(&c->output, &c->inputs[0], i)] + y[broadcast_index(&c->output, &c->inputs[1], i)]; \
    if (is_op(c, "matmul")) {                                                                                         \
      const dims3 d = matmul_dims(c);                                                                                 \
      for (int64_t b = 0; b < d.batch; ++b)                                                                           \
        for (int64_t i = 0; i < d.m; ++i)                                                                             \
          for (int64_t j = 0; j < d.n; ++j) {                                                                         \
            T s = 0;                                                                                                  \
            for (int64_t p = 0; p < d.k; ++p) s += x[(b * d.m + i) * d.k + p] * y[(b * d.k + p) * d.n + j];           \
            out[(b * d.m + i) * d.n + j] = s;                                                                         \
          }                                                                                                           \
    }                                                                                                                 \
  }                                                                                                                   \
  static void vjp_##T(const gp_op_call* c, const T* x, const T* y, const T* out, const T* g, T* gx, T* gy) {          \
    const int64_t n = numel(&c->output);                                                                              \
    if (is_op(c, "exp"))                                                                                              \
      for (int64_t i = 0; i < n; ++i) gx[i] = g[i] * out[i];                                                          \
    if (is_op(c, "add")) { /* a broadcast input's gradient sums over its repeated elements */                         \
      T* grads[2] = {gx, gy};                                                                                         \
      for (int k = 0; k < 2; ++k) {                                                                                   \
        if (!grads[k]) continue;                                                                                      \
        memset(grads[k], 0, (size_t)numel(&c->inputs[k]) * sizeof(T));                                                \
        for (int64_t i = 0; i < n; ++i) grads[k][broadcast_index(&c->output, &c->inputs[k], i)] += g[i];              \
      }                                                                                                               \
    }                                                                                                                 \
    if (is_op(c, "matmul")) { /* dA = dC B^T, dB = A^T dC */                                                          \
      const dims3 d = matmul_dims(c);                                                                                 \
      for (int64_t b = 0; b < d.batch; ++b) {                                                                         \
        const T *A = x + b * d.m * d.k, *B = y + b * d.k * d.n, *G = g + b * d.m * d.n;                               \
        for (int64_t i = 0; i < d.m && gx; ++i)                                                                       \
          for (int64_t p = 0; p < d.k; ++p) {                                                                         \
            T s = 0;                                                                                                  \
            for (int64_t j = 0; j < d.n; ++j) s += G[i * d.n + j] * B[p * d.n + j];                                   \
            gx[(b * d.m + i) * d.k + p] = s;                                                                          \
          }                                                                                                           \
        for (int64_t p = 0; p < d.k && gy; ++p)                                                                       \
          for (int64_t j = 0; j < d.n; ++j) {                                                                         \
            T s = 0;                                                                                                  \
            for (int64_t i = 0; i < d.m; ++i) s += A[i * d.k + p] * G[i * d.n + j];                                   \
            gy[(b * d.k + p) * d.n + j] = s;                                                                          \
          }                                                                                                           \
      }                                                                                                               \
    }                                                                                                                 \
  }
DEFINE_KERNELS(float, expf)
DEFINE_KERNELS(double, exp)

/* The second input's data, or NULL for exp. */
static const void* second(const gp_op_call* c, const gp_buffer* const* in) {
  return c->input_count > 1 ? in[1]->data : NULL;
}

static gp_status forward(gp_queue* q, const gp_op_call* c, const gp_buffer* const* in, gp_buffer* out) {
  (void)q;
  if (c->dtype == GP_DTYPE_F32)
    forward_float(c, (const float*)in[0]->data, second(c, in), (float*)out->data);
  else
    forward_double(c, (const double*)in[0]->data, second(c, in), (double*)out->data);
  return GP_OK;
}

static gp_status vjp(gp_queue* q, const gp_op_call* c, const gp_buffer* const* in, const gp_buffer* out,
                     const gp_buffer* dout, gp_buffer* const* grads) {
  (void)q;
  void* gx = grads[0] ? grads[0]->data : NULL;
  void* gy = c->input_count > 1 && grads[1] ? grads[1]->data : NULL;
  if (c->dtype == GP_DTYPE_F32)
    vjp_float(c, (const float*)in[0]->data, second(c, in), (const float*)out->data, (const float*)dout->data, gx, gy);
  else
    vjp_double(c, (const double*)in[0]->data, second(c, in), (const double*)out->data, (const double*)dout->data, gx,
               gy);
  return GP_OK;
}

static gp_status finish(gp_queue* q) { return (void)q, GP_OK; }

static const char* last_error(void) { return error_text; }

GP_PLUGIN_EXPORT uint32_t gradparity_plugin_abi_version(void) { return GP_PLUGIN_ABI_VERSION; }

GP_PLUGIN_EXPORT const gp_plugin_api* gradparity_plugin(void) {
  static const gp_plugin_api api = GP_PLUGIN_API_TABLE("minimal", GP_THREADS_FULL);
  return &api;
}
