// The op families the oneDNN plugin maps onto oneDNN primitives, behind one interface: each
// family says whether it has an op (with the reason when it cannot run a call), and runs forward
// and VJP on the CPU engine over host buffers. plugin_table.cpp is the C ABI around them.
#pragma once

#include <gradparity/plugin.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gp_onednn {

// What one forward or VJP call gets: the engine and stream of its device and queue, the call,
// and raw host pointers (inputs in call order; grads[k] null when input k gets no gradient).
struct Exec {
  const dnnl::engine& engine;
  dnnl::stream& stream;
  const gp_op_call& call;
  const void* const* inputs;
};

struct Family {
  // Whether this family maps the op at all.
  bool (*has)(const char* op);
  // Empty when the call can run; otherwise why not (SKIP reason). Runs after `has`.
  std::optional<std::string> (*cannot_run)(const dnnl::engine&, const gp_op_call&);
  void (*forward)(const Exec&, void* out);
  void (*vjp)(const Exec&, const void* out, const void* dout, void* const* grads);
};

extern const Family eltwise_family;
extern const Family softmax_family;
extern const Family matmul_family;  // matmul and linear
extern const Family binary_family;
extern const Family layer_norm_family;
extern const Family reduction_family;  // sum, mean, max over one axis
extern const Family reshape_family;    // a reorder: bench's copy bandwidth

// The ABI's arithmetic probe (docs/bench.md) on the host's cores, in the vector arithmetic
// oneDNN's kernels run there; false for a dtype without one (arithmetic_probe.cpp).
bool run_arithmetic_probe(void* out, gp_dtype dtype, int64_t elements, int32_t steps);

// oneDNN's data type for a gradparity dtype (f32, bf16), or undef when oneDNN's CPU engine lacks it.
dnnl::memory::data_type data_type(gp_dtype dtype);
// A dense row-major descriptor of `dims`, rank 0 as [1].
dnnl::memory::desc plain_desc(const gp_tensor_desc& t, gp_dtype dtype);
dnnl::memory::desc plain_desc(const dnnl::memory::dims& dims, gp_dtype dtype);
dnnl::memory::dims dims_of(const gp_tensor_desc& t);
// Wraps a host pointer (never owned) as oneDNN memory.
dnnl::memory wrap(const Exec& e, const dnnl::memory::desc& desc, const void* data);
// Tries to build a primitive descriptor; the reason oneDNN gives when it has no implementation.
std::optional<std::string> creation_failure(const auto& make) {
  try {
    make();
    return std::nullopt;
  } catch (const dnnl::error& err) {
    return std::string("oneDNN has no implementation: ") + err.what();
  }
}
bool op_is(const gp_op_call& call, const char* name);
// Why a call of one of the plugin's ops breaks the op's shape rule (its input count, dtypes, shapes,
// axis, output shape), or nothing; supports() asks before any family sees the call.
std::optional<std::string> shape_rule_problem(const gp_op_call& call);
// The call's axis attribute as a dimension index of input 0 (rank 0 counts as rank 1).
int axis_of(const gp_op_call& call);

// Steps of the gradients oneDNN has no backward primitive for (compose.cpp). oneDNN 2.6's binary
// takes an f32 and a bf16 source together in neither order, so such gradients run in f32 scratch.

// Zero-filled f32 memory of `dims` (filled with `fill` when given), owned with its storage.
struct F32Scratch {
  std::vector<float> data;
  dnnl::memory mem;
  F32Scratch(const Exec& e, const dnnl::memory::dims& dims, float fill = 0.f);
};
// dst = a (algo) b; oneDNN 2.6 broadcasts b (size-1 dimensions), never a.
void run_binary(const Exec& e, dnnl::algorithm algo, const dnnl::memory& a, const dnnl::memory& b,
                const dnnl::memory& dst);
// Converts (or copies) `from` into `to`, which has the same dims.
void run_reorder(const Exec& e, const dnnl::memory& from, const dnnl::memory& to);
// `m` in f32: itself, or converted into `storage`.
dnnl::memory as_f32(const Exec& e, const dnnl::memory& m, std::vector<float>& storage);

}  // namespace gp_onednn
