/* gradparity plugin ABI: an op library's backend as a table of C functions, so that a library
 * built by another compiler or written in another language can be verified by `gradparity run
 * --backend plugin:PATH.so[:DEVICE]` without linking against gradparity. docs/plugins.md walks
 * through it; examples/plugin-minimal/ is a complete plugin.
 *
 * Pure C (C99): only fixed-width integers, doubles, pointers and opaque handles cross the
 * boundary. A plugin exports two symbols with C linkage:
 *
 *   uint32_t gradparity_plugin_abi_version(void);   returns GP_PLUGIN_ABI_VERSION as compiled
 *   const gp_plugin_api* gradparity_plugin(void);    the function table, valid until unloaded
 *
 * The host calls gradparity_plugin_abi_version first and never reads the table of a plugin built for
 * an ABI version it does not load. Every function pointer of version 1 is required; the members a
 * later version appends are optional (NULL: the plugin has none).
 *
 * Versioning: GP_PLUGIN_ABI_VERSION changes whenever a struct's layout or a function's meaning
 * changes. A version only appends members to the table, so this host loads versions 1 to 5: a
 * version-1 plugin's table ends where version 2's first member begins (its struct_size says so),
 * and the host reads no member past a table's struct_size. Op names are the catalog's names
 * (docs/ops.md), stable across versions; a new catalog op only reaches a plugin as an op name it
 * answers GP_UNSUPPORTED to. */
#ifndef GRADPARITY_PLUGIN_H
#define GRADPARITY_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GP_PLUGIN_ABI_VERSION 5u
#define GP_PLUGIN_ABI_OLDEST 1u /* the oldest version this header's host still loads */

/* Status of every fallible call. */
typedef int32_t gp_status;
#define GP_OK 0
#define GP_ERROR 1       /* failed: last_error() says why */
#define GP_UNSUPPORTED 2 /* supports() only: the op is not implemented; `reason` says why */

/* Element types. 16-bit types are storage formats; the reference treats them as computed in f32. */
typedef int32_t gp_dtype;
#define GP_DTYPE_F16 0
#define GP_DTYPE_BF16 1
#define GP_DTYPE_F32 2
#define GP_DTYPE_F64 3
#define GP_DTYPE_I32 4 /* cross_entropy's class targets */
#define GP_DTYPE_BIT(t) (1u << (t))

/* The thread-safety contract a plugin declares; the host enforces the locking it implies, and
 * `gradparity stress` checks the plugin under it. In every contract a queue is used by one
 * thread at a time, and a buffer by one queue at a time.
 *   SERIALISED:       the host makes one call at a time into the plugin (one lock per library).
 *   QUEUE_PER_THREAD: queue functions (upload, download, forward, vjp, finish) on different
 *                     queues may run at once; the host serialises every other function.
 *   FULL:             any function may be called from any thread at once. */
typedef int32_t gp_thread_contract;
#define GP_THREADS_SERIALISED 0
#define GP_THREADS_QUEUE_PER_THREAD 1
#define GP_THREADS_FULL 2

#define GP_MAX_RANK 8 /* the catalog uses rank 4 at most today */

/* A tensor: dtype and row-major dims (rank 0 is a scalar of one element). */
typedef struct gp_tensor_desc {
  gp_dtype dtype;
  int32_t rank;
  int64_t dims[GP_MAX_RANK];
} gp_tensor_desc;

/* Every attribute of the catalog, each with its default when the op does not use it
 * (core/README.md says which op uses which). softmax's and log_softmax's `staged` is not among
 * them on purpose: it declares which definition a case's bound is derived for (an intermediate
 * rounded to the storage type), not what the kernel is asked to compute, so a kernel computes the
 * same either way; attrs_text names it ("axis=-1,staged=storage") for messages. */
typedef struct gp_op_attrs {
  double p;             /* pow_scalar exponent */
  double alpha;         /* leaky_relu slope, elu alpha */
  int32_t gelu_approx;  /* gelu: 0 erf, 1 tanh */
  int32_t axis;         /* reductions, softmax, log_softmax, concat, slice; may be negative */
  int32_t keepdim;      /* reductions: 0 or 1 */
  int32_t correction;   /* variance divisor n - correction */
  double eps;           /* layer_norm, rms_norm */
  int32_t reshape_rank; /* reshape target */
  int64_t reshape[GP_MAX_RANK];
  int64_t slice_start, slice_stop, slice_step; /* slice along axis */
  int32_t loss_reduction;                      /* mse_loss: 0 mean, 1 sum */
  double tau;                                  /* gumbel_softmax temperature */
  int32_t order, grid;                         /* bspline_basis */
} gp_op_attrs;

/* How an input lies in its buffer (ABI version 5): element (i0, ..., i_rank-1) of the tensor is
 * element offset + sum_d i_d * strides[d] of the buffer, which holds offset + sum_d (dims[d] - 1) *
 * strides[d] + 1 elements; the elements between are not the tensor's (the host fills them with NaN).
 * A stride may be 0: an expanded dimension whose indices all read one element. docs/strided-inputs.md. */
typedef struct gp_tensor_layout {
  int64_t offset;
  int64_t strides[GP_MAX_RANK];
} gp_tensor_layout;

/* One call of a catalog op: what forward, vjp and supports receive. Strings and arrays are
 * owned by the host and valid during the call only. */
typedef struct gp_op_call {
  uint32_t struct_size; /* sizeof(gp_op_call) as the host compiled it */
  const char* op;       /* catalog name: "exp", "add", "matmul", ... */
  gp_dtype dtype;       /* dtype of every floating-point tensor of the call */
  int32_t input_count;
  const gp_tensor_desc* inputs;
  gp_tensor_desc output;
  gp_op_attrs attrs;
  const char* attrs_text; /* the attributes the op uses as "key=value,...": "axis=-1,keepdim=1"; "" if none */
  const char* case_id;    /* for messages: "exp(shape=64x128,dtype=f32)" */
  /* --- version 5 (read it only where struct_size reaches it) ---
   * NULL when every input is contiguous row-major, as always for a plugin that does not declare
   * strided_inputs; else one layout per input (a contiguous one with its row-major strides and
   * offset 0). Outputs, dout and gradients are contiguous. */
  const gp_tensor_layout* input_layouts;
} gp_op_call;

/* What a device says about itself. Strings must stay valid while the library is loaded. */
typedef struct gp_device_info {
  const char* name;
  const char* driver;
  const char* api_version;
  uint32_t dtypes;              /* GP_DTYPE_BIT of each dtype the device runs */
  int32_t may_flush_subnormals; /* 1 when results below the smallest normal may become zero */
  /* The accuracy of the library functions the kernels call, by the name of a profile gradparity
   * has: "cpu" (glibc 2.36 libm), "opencl" (OpenCL C ULP tables), "vulkan" (SPIR-V precision
   * table), "correctly-rounded". NULL or "" means "correctly-rounded": gradparity allows no
   * library error a plugin has not declared. */
  const char* math_profile;
  const char* notes; /* one line for reports, or NULL */
} gp_device_info;

/* The accuracy a device promises for one library function its kernels call (ABI version 4):
 * |computed - exact| <= ulps * ulp(exact) + abs, in the compute dtype (GP_DTYPE_F32, which the
 * 16-bit storage types compute in, or GP_DTYPE_F64), over the function's whole domain. It replaces
 * the math profile's budget for that function and dtype; `source` says where the promise is
 * written ("SLEEF 3.5 reference: Sleef_expf_u10, max error 1.0 ULP"). Strings stay valid while
 * the library is loaded. */
typedef struct gp_math_budget {
  const char* function; /* div, sqrt, rsqrt, exp, expm1, log, log1p, pow, sin, cos, tanh, erf, erfc */
  gp_dtype dtype;
  double ulps;
  double abs;
  const char* source;
} gp_math_budget;

typedef struct gp_device gp_device; /* opaque, the plugin's own */
typedef struct gp_buffer gp_buffer;
typedef struct gp_queue gp_queue;

typedef struct gp_plugin_api {
  uint32_t abi_version; /* GP_PLUGIN_ABI_VERSION */
  uint32_t struct_size; /* sizeof(gp_plugin_api) */
  const char* name;     /* short name for messages: "minimal" */
  gp_thread_contract threads;

  int32_t (*device_count)(void);
  gp_status (*device_info)(int32_t index, gp_device_info* out);
  /* Each open gives an independent instance; the host may open one device many times. */
  gp_status (*open_device)(int32_t index, gp_device** out);
  void (*close_device)(gp_device* device);

  /* GP_OK, or GP_UNSUPPORTED with a reason (NUL-terminated, at most reason_size bytes). */
  gp_status (*supports)(gp_device* device, const gp_op_call* call, char* reason, size_t reason_size);

  gp_status (*allocate)(gp_device* device, gp_dtype dtype, int64_t bytes, gp_buffer** out);
  void (*free_buffer)(gp_device* device, gp_buffer* buffer); /* no work using it is in flight */
  gp_status (*create_queue)(gp_device* device, gp_queue** out);
  void (*destroy_queue)(gp_device* device, gp_queue* queue);

  /* Work on one queue runs in order. download returns after every earlier command of the queue
   * has finished and `bytes` bytes have been copied into `dst`. */
  gp_status (*upload)(gp_queue* queue, gp_buffer* dst, const void* src, int64_t bytes);
  gp_status (*download)(gp_queue* queue, const gp_buffer* src, void* dst, int64_t bytes);
  /* out = op(inputs); inputs follow call->inputs. */
  gp_status (*forward)(gp_queue* queue, const gp_op_call* call, const gp_buffer* const* inputs, gp_buffer* out);
  /* grads[k] = (d out / d input_k)^T dout, fully overwritten; grads[k] is NULL for an input that
   * gets no gradient. `out` holds the forward result for these inputs. */
  gp_status (*vjp)(gp_queue* queue, const gp_op_call* call, const gp_buffer* const* inputs, const gp_buffer* out,
                   const gp_buffer* dout, gp_buffer* const* grads);
  gp_status (*finish)(gp_queue* queue);

  /* Text of the latest failing call made by the calling thread (a serialised plugin may keep one
   * global text: the host reads it before its next call). Never NULL. */
  const char* (*last_error)(void);

  /* --- version 2: optional (NULL: none) -------------------------------------------------------
   * The device's arithmetic rate for `gradparity bench` (docs/bench.md): for each of the
   * `elements` elements of `out` (of `dtype`: GP_DTYPE_F32 or GP_DTYPE_F64), independent chains
   * of x -> 0.999999 x + 1e-6 that make `steps` multiply-adds (a multiple of 64) in all, in the
   * arithmetic the library's kernels use for that dtype, their ends summed into the element.
   * Queue work like forward: it runs in order, and the host times it like a call. GP_UNSUPPORTED
   * for a dtype it has no probe for. */
  gp_status (*arithmetic_probe)(gp_queue* queue, gp_buffer* out, gp_dtype dtype, int64_t elements, int32_t steps);

  /* --- version 3: optional (NULL: none) -------------------------------------------------------
   * The ops whose vjp on device `index` computes the derivative from the forward's value, the
   * `out` it is given or that value recomputed, instead of stably from the inputs (tanh as
   * dout (1 - y^2), sigmoid as dout y (1 - y), log_softmax as dout - exp(y) sum(dout)): catalog
   * op names separated by commas, "tanh,sigmoid,log_softmax"; NULL or "" for none. Undeclared,
   * a backward is judged by the bound of the stable form computed from the inputs, which such a
   * formulation exceeds where 1 - y^2 cancels (docs/error-model.md, "Backward formulations").
   * The text stays valid while the library is loaded. */
  const char* (*backward_reads_output)(int32_t index);

  /* --- version 4: optional (NULL: none) -------------------------------------------------------
   * The library functions whose accuracy device `index` declares (gp_math_budget): sets *out to
   * an array that stays valid while the library is loaded and returns its length (0: none). Each
   * replaces the declared math profile's budget for its function and dtype; the report shows the
   * promise and flags one looser than the profile's (docs/plugins.md, "Declared math budgets"). */
  int32_t (*math_budgets)(int32_t index, const gp_math_budget** out);

  /* --- version 5: optional (0: none) ------------------------------------------------------------
   * 1: supports, forward and vjp read call->input_layouts, and the host gives this library the
   * catalog's strided cases (transposed, step-2 and expanded views, docs/strided-inputs.md);
   * supports refuses, with its reason, a layout an op does not take. 0, or a table of an older
   * version: the host gives contiguous inputs only, and those cases SKIP. */
  int32_t strided_inputs;
} gp_plugin_api;

/* The table of a plugin whose functions carry the names of their slots (device_count,
 * device_info, ..., last_error), in designated initialisers (C99 and C++20 alike), without the
 * optional members (a plugin with an arithmetic probe or declared formulations fills its table
 * member by member, as tests/plugin/test_plugin.c does):
 *   static const gp_plugin_api api = GP_PLUGIN_API_TABLE("minimal", GP_THREADS_FULL);   */
#define GP_PLUGIN_API_TABLE(NAME, THREADS)                                                                            \
  {                                                                                                                   \
    .abi_version = GP_PLUGIN_ABI_VERSION, .struct_size = sizeof(gp_plugin_api), .name = (NAME), .threads = (THREADS), \
    .device_count = device_count, .device_info = device_info, .open_device = open_device,                             \
    .close_device = close_device, .supports = supports, .allocate = allocate, .free_buffer = free_buffer,             \
    .create_queue = create_queue, .destroy_queue = destroy_queue, .upload = upload, .download = download,             \
    .forward = forward, .vjp = vjp, .finish = finish, .last_error = last_error                                        \
  }

/* Marks the two entry points exported even from a library built with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define GP_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define GP_PLUGIN_EXPORT
#endif

typedef uint32_t (*gp_plugin_abi_version_fn)(void);
typedef const gp_plugin_api* (*gp_plugin_api_fn)(void);
#define GP_PLUGIN_ABI_VERSION_SYMBOL "gradparity_plugin_abi_version"
#define GP_PLUGIN_API_SYMBOL "gradparity_plugin"

#ifdef __cplusplus
}
#endif

#endif /* GRADPARITY_PLUGIN_H */
