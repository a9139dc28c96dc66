/* Small plugins for tests/plugin: exp in f32 only, built once per variant (-D) to be a bad
 * plugin in one way each, or a racy one:
 *   GP_TEST_BAD_ABI        reports ABI version GP_PLUGIN_ABI_VERSION + 1
 *   GP_TEST_ABI_V1         a plugin built for ABI version 1: its table ends before version 2's
 *                          members (no arithmetic probe); every other variant has the probe
 *   GP_TEST_ABI_V2         a plugin built for ABI version 2: its table ends before version 3's
 *                          member; the others declare the ops named by GP_TEST_BACKWARD_READS_OUTPUT
 *                          (where set) to compute their backward from the forward's value, which
 *                          exp's vjp here does
 *   GP_TEST_ABI_V3         a plugin built for ABI version 3: its table ends before version 4's
 *                          member; the others declare the math budgets GP_TEST_MATH_BUDGETS lists
 *                          (where set: "function:dtype:ulps:abs:source;..."; up to four)
 *   GP_TEST_ABI_V4         a plugin built for ABI version 4: its table ends before version 5's
 *                          member (it sets strided_inputs past its struct_size, which the host must
 *                          not read); the plain variant declares strided inputs and reads them
 *   GP_TEST_IGNORES_STRIDES declares strided inputs but reads every input buffer as contiguous
 *   GP_TEST_NO_TABLE       exports its table under a misspelt name, lacking gradparity_plugin
 *   GP_TEST_NULL_FUNCTION  its table has no vjp
 *   GP_TEST_ERROR_RETURN   forward returns GP_ERROR with a message
 *   GP_TEST_SUPPORTS_ERROR supports returns GP_ERROR with a message
 *   GP_TEST_TRUSTING       supports accepts every exp call in f32, the ones the catalog refuses
 *                          too (docs/invalid-calls.md); the others refuse those
 *   GP_TEST_SUPPORTS_SEGV  supports dereferences a null pointer on an exp call the catalog refuses
 *   GP_TEST_SEGV           forward dereferences a null pointer for 7 elements (exp(shape=7)), and is
 *                          correct for every other shape
 *   GP_TEST_HANG           forward never returns for 7 elements, and is correct for every other shape
 *   GP_TEST_RACY           forward goes through one static scratch buffer: wrong under concurrent
 *                          calls, so correct only under GP_THREADS_SERIALISED (GP_TEST_CONTRACT)
 * Every variant names its device "test plugin device", or GP_TEST_DEVICE_NAME where that is set;
 * the plain ones (good) multiply exp's result by 1 + GP_TEST_EXP_RELATIVE_ERROR where that is set.
 * C99 with -pedantic: the ABI header must compile as plain C99. */
#include <gradparity/plugin.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#ifndef GP_TEST_CONTRACT
#define GP_TEST_CONTRACT GP_THREADS_SERIALISED
#endif

static char error_text[128]; /* one text: the host serialises the calls that can fail */

static gp_status fail(const char* text) {
  strncpy(error_text, text, sizeof error_text - 1);
  return GP_ERROR;
}

struct gp_buffer {
  int64_t bytes;
  float data[];
};

static int32_t device_count(void) { return 1; }

static gp_status device_info(int32_t index, gp_device_info* out) {
  (void)index;
  out->name = getenv("GP_TEST_DEVICE_NAME") ? getenv("GP_TEST_DEVICE_NAME") : "test plugin device";
  out->driver = "tests/plugin/test_plugin.c";
  out->api_version = "1";
  out->dtypes = GP_DTYPE_BIT(GP_DTYPE_F32);
  out->may_flush_subnormals = 0;
  out->math_profile = "cpu";
  out->notes = NULL;
  return GP_OK;
}

static gp_status open_device(int32_t index, gp_device** out) {
  (void)index;
  *out = (gp_device*)malloc(1);
  return *out ? GP_OK : fail("out of memory");
}
static void close_device(gp_device* d) { free(d); }

/* exp's shape rule: one f32 input, an output of its dims (docs/invalid-calls.md). */
static int valid_exp(const gp_op_call* call) {
  int32_t d;
  if (call->input_count != 1 || call->inputs[0].dtype != GP_DTYPE_F32 || call->output.rank != call->inputs[0].rank)
    return 0;
  for (d = 0; d < call->output.rank; ++d)
    if (call->output.dims[d] != call->inputs[0].dims[d]) return 0;
  return 1;
}

static gp_status supports(gp_device* d, const gp_op_call* call, char* reason, size_t size) {
  (void)d;
#ifdef GP_TEST_SUPPORTS_ERROR
  if (strcmp(call->op, "exp") == 0) return fail("injected failure in supports");
#endif
  if (strcmp(call->op, "exp") == 0 && call->dtype == GP_DTYPE_F32) {
#if defined(GP_TEST_TRUSTING)
    return GP_OK; /* runs whatever it is handed */
#elif defined(GP_TEST_SUPPORTS_SEGV)
    if (!valid_exp(call)) return *(volatile gp_status*)NULL; /* reads past what it was given */
#endif
    if (valid_exp(call)) return GP_OK;
    strncpy(reason, "exp: one f32 input and an output of its shape", size - 1);
    return GP_UNSUPPORTED;
  }
  strncpy(reason, "exp in f32 only", size - 1);
  return GP_UNSUPPORTED;
}

static gp_status allocate(gp_device* d, gp_dtype t, int64_t bytes, gp_buffer** out) {
  (void)d, (void)t;
  *out = (gp_buffer*)malloc(sizeof(gp_buffer) + (size_t)bytes);
  if (!*out) return fail("out of memory");
  (*out)->bytes = bytes;
  return GP_OK;
}
static void free_buffer(gp_device* d, gp_buffer* b) { (void)d, free(b); }

static gp_status create_queue(gp_device* d, gp_queue** out) {
  *out = (gp_queue*)d; /* commands run on the calling thread: a queue is the device */
  return GP_OK;
}
static void destroy_queue(gp_device* d, gp_queue* q) { (void)d, (void)q; }

static gp_status upload(gp_queue* q, gp_buffer* dst, const void* src, int64_t bytes) {
  (void)q;
  memcpy(dst->data, src, (size_t)bytes);
  return GP_OK;
}
static gp_status download(gp_queue* q, const gp_buffer* src, void* dst, int64_t bytes) {
  (void)q;
  memcpy(dst, src->data, (size_t)bytes);
  return GP_OK;
}

static int64_t count(const gp_tensor_desc* t) {
  int64_t n = 1;
  int32_t i;
  for (i = 0; i < t->rank; ++i) n *= t->dims[i];
  return n;
}

/* Element i (row-major) of input k: through its layout where the host gave one. */
static float input_at(const gp_op_call* c, const gp_buffer* b, int k, int64_t i) {
  const gp_tensor_desc* t = &c->inputs[k];
  const gp_tensor_layout* l;
  int64_t at;
  int32_t d;
#ifdef GP_TEST_IGNORES_STRIDES
  return b->data[i];
#endif
  if (c->struct_size < offsetof(gp_op_call, input_layouts) + sizeof c->input_layouts || !c->input_layouts)
    return b->data[i];
  l = &c->input_layouts[k];
  at = l->offset;
  for (d = t->rank - 1; d >= 0; --d) {
    at += (i % t->dims[d]) * l->strides[d];
    i /= t->dims[d];
  }
  return b->data[at];
}

static gp_status forward(gp_queue* q, const gp_op_call* c, const gp_buffer* const* in, gp_buffer* out) {
  int64_t i, n = count(&c->output);
  (void)q;
#if defined(GP_TEST_ERROR_RETURN)
  (void)n, (void)i, (void)in, (void)out, (void)input_at;
  return fail("injected failure in forward");
#elif defined(GP_TEST_SEGV) || defined(GP_TEST_HANG)
#ifdef GP_TEST_SEGV
  if (n == 7) return *(volatile gp_status*)NULL;
#else
  while (n == 7) sched_yield();
#endif
  for (i = 0; i < n; ++i) out->data[i] = expf(input_at(c, in[0], 0, i));
  return GP_OK;
#elif defined(GP_TEST_RACY)
  {
    static float scratch[1 << 14];
    if (n > (int64_t)(sizeof scratch / sizeof *scratch)) return fail("case too large for the scratch buffer");
    for (i = 0; i < n; ++i) scratch[i] = expf(input_at(c, in[0], 0, i));
    sched_yield(); /* widen the window in which another thread overwrites the scratch */
    for (i = 0; i < n; ++i) out->data[i] = scratch[i];
  }
  return GP_OK;
#else
  {
    /* A kernel wrong by a chosen relative error, for the known-failures baseline (--expect). */
    const char* wrong = getenv("GP_TEST_EXP_RELATIVE_ERROR");
    const float scale = 1.0f + (wrong ? (float)atof(wrong) : 0.0f);
    for (i = 0; i < n; ++i) out->data[i] = expf(input_at(c, in[0], 0, i)) * scale;
  }
  return GP_OK;
#endif
}

static gp_status vjp(gp_queue* q, const gp_op_call* c, const gp_buffer* const* in, const gp_buffer* out,
                     const gp_buffer* dout, gp_buffer* const* grads) {
  int64_t i, n = count(&c->output);
  (void)q, (void)in;
  for (i = 0; i < n; ++i) grads[0]->data[i] = dout->data[i] * out->data[i];
  return GP_OK;
}

static gp_status finish(gp_queue* q) { return (void)q, GP_OK; }

/* Eight chains per element of x -> 0.999999 x + 1e-6, steps multiply-adds in all. */
static gp_status arithmetic_probe(gp_queue* q, gp_buffer* out, gp_dtype t, int64_t elements, int32_t steps) {
  int64_t i;
  int32_t s, c;
  (void)q;
  if (t != GP_DTYPE_F32) return GP_UNSUPPORTED;
  for (i = 0; i < elements; ++i) {
    float x[8], sum = 0;
    for (c = 0; c < 8; ++c) x[c] = (float)(i + c);
    for (s = 0; s < steps / 8; ++s)
      for (c = 0; c < 8; ++c) x[c] = 0.999999f * x[c] + 1e-6f;
    for (c = 0; c < 8; ++c) sum += x[c];
    out->data[i] = sum;
  }
  return GP_OK;
}
static const char* last_error(void) { return error_text; }
static const char* backward_reads_output(int32_t index) {
  (void)index;
  return getenv("GP_TEST_BACKWARD_READS_OUTPUT");
}

static gp_math_budget budgets[4];
static char budget_text[512];
/* Splits GP_TEST_MATH_BUDGETS in place of a copy; the strings stay valid until the next call. */
static int32_t math_budgets(int32_t index, const gp_math_budget** out) {
  const char* env = getenv("GP_TEST_MATH_BUDGETS");
  char* p = budget_text;
  int32_t n = 0;
  (void)index;
  *out = budgets;
  if (!env) return 0;
  strncpy(budget_text, env, sizeof budget_text - 1);
  while (*p && n < 4) {
    char* field[5];
    int k;
    for (k = 0; k < 5; ++k) {
      field[k] = p;
      p += strcspn(p, k < 4 ? ":" : ";");
      if (*p) *p++ = '\0';
    }
    budgets[n].function = field[0];
    budgets[n].dtype = strcmp(field[1], "f64") == 0 ? GP_DTYPE_F64 : strcmp(field[1], "f32") == 0 ? GP_DTYPE_F32 : -1;
    budgets[n].ulps = atof(field[2]);
    budgets[n].abs = atof(field[3]);
    budgets[n].source = field[4];
    ++n;
  }
  return n;
}

GP_PLUGIN_EXPORT uint32_t gradparity_plugin_abi_version(void) {
#ifdef GP_TEST_BAD_ABI
  return GP_PLUGIN_ABI_VERSION + 1;
#elif defined(GP_TEST_ABI_V1)
  return 1;
#elif defined(GP_TEST_ABI_V2)
  return 2;
#elif defined(GP_TEST_ABI_V3)
  return 3;
#elif defined(GP_TEST_ABI_V4)
  return 4;
#else
  return GP_PLUGIN_ABI_VERSION;
#endif
}

#ifdef GP_TEST_NO_TABLE
#define TABLE gradparity_plugin_table
#else
#define TABLE gradparity_plugin
#endif
GP_PLUGIN_EXPORT const gp_plugin_api* TABLE(void) {
  static gp_plugin_api api;
#ifdef GP_TEST_ABI_V1
  api.abi_version = 1;
  api.struct_size = offsetof(gp_plugin_api, arithmetic_probe);
  (void)arithmetic_probe, (void)backward_reads_output, (void)math_budgets;
#elif defined(GP_TEST_ABI_V2)
  api.abi_version = 2;
  api.struct_size = offsetof(gp_plugin_api, backward_reads_output);
  api.arithmetic_probe = arithmetic_probe;
  (void)backward_reads_output, (void)math_budgets;
#elif defined(GP_TEST_ABI_V3)
  api.abi_version = 3;
  api.struct_size = offsetof(gp_plugin_api, math_budgets);
  api.arithmetic_probe = arithmetic_probe;
  api.backward_reads_output = backward_reads_output;
  api.math_budgets = math_budgets; /* past its struct_size: a host that reads it reads past the table */
#elif defined(GP_TEST_ABI_V4)
  api.abi_version = 4;
  api.struct_size = offsetof(gp_plugin_api, strided_inputs);
  api.arithmetic_probe = arithmetic_probe;
  api.backward_reads_output = backward_reads_output;
  api.math_budgets = math_budgets;
  api.strided_inputs = 1; /* past its struct_size: a host that reads it reads past the table */
#else
  api.abi_version = GP_PLUGIN_ABI_VERSION;
  api.struct_size = sizeof api;
  api.arithmetic_probe = arithmetic_probe;
  api.backward_reads_output = backward_reads_output;
  api.math_budgets = math_budgets;
  api.strided_inputs = 1; /* forward reads its input through input_at */
#endif
  api.name = "test";
  api.threads = GP_TEST_CONTRACT;
  api.device_count = device_count;
  api.device_info = device_info;
  api.open_device = open_device;
  api.close_device = close_device;
  api.supports = supports;
  api.allocate = allocate;
  api.free_buffer = free_buffer;
  api.create_queue = create_queue;
  api.destroy_queue = destroy_queue;
  api.upload = upload;
  api.download = download;
  api.forward = forward;
#ifdef GP_TEST_NULL_FUNCTION
  (void)vjp;
#else
  api.vjp = vjp;
#endif
  api.finish = finish;
  api.last_error = last_error;
  return &api;
}
