// add, sub, mul, div, maximum, minimum with NumPy broadcasting, on oneDNN's binary primitive.
// oneDNN 2.6 broadcasts only its second source, so a broadcast first input is first spread to
// the output's shape (0 + x, exact). oneDNN has no binary backward: the gradients are binary
// products on the output's shape in f32 scratch, summed over the broadcast dimensions by the
// reduction primitive (or converted by a reorder when the input is not broadcast):
//   add: g, g   sub: g, -g   mul: g·y, g·x   div: g/y, -(g·out)/y
//   maximum: g·[x>y], g - g·[x>y]   minimum: g·[x<y], g - g·[x<y]
#include <vector>

#include "onednn_ops.hpp"

namespace gp_onednn {
namespace binary_impl {
namespace {

using dnnl::algorithm;
using dnnl::memory;

struct BinaryOp {
  const char* name;
  algorithm forward;
};
constexpr BinaryOp ops[] = {{"add", algorithm::binary_add},     {"sub", algorithm::binary_sub},
                            {"mul", algorithm::binary_mul},     {"div", algorithm::binary_div},
                            {"maximum", algorithm::binary_max}, {"minimum", algorithm::binary_min}};

const BinaryOp* find(const char* name) {
  for (const BinaryOp& op : ops)
    if (std::string_view(op.name) == name) return &op;
  return nullptr;
}

// Input k's dims right-aligned to the output's rank (leading 1s: the same memory layout).
memory::dims aligned_dims(const gp_op_call& c, int k) {
  const memory::dims out = dims_of(c.output);
  memory::dims d(out.size(), 1);
  const memory::dims in = dims_of(c.inputs[k]);
  if (c.inputs[k].rank > 0) std::copy(in.begin(), in.end(), d.end() - static_cast<long>(in.size()));
  return d;
}

// Zero-filled f32 scratch of the output's shape.
struct Scratch : F32Scratch {
  explicit Scratch(const Exec& e) : F32Scratch(e, dims_of(e.call.output)) {}
};

memory input(const Exec& e, int k) { return wrap(e, plain_desc(aligned_dims(e.call, k), e.call.dtype), e.inputs[k]); }

// Input 0 on the output's shape: itself when not broadcast, else spread into `scratch`.
memory full_input0(const Exec& e, Scratch& scratch) {
  if (aligned_dims(e.call, 0) == dims_of(e.call.output)) return input(e, 0);
  run_binary(e, algorithm::binary_add, scratch.mem, input(e, 0), scratch.mem);
  return scratch.mem;
}

// grad = the sum of `full` (f32) over input k's broadcast dimensions, in the call's dtype. The
// sum is taken in f32 and converted after: oneDNN 2.6 has no f32-to-bf16 reduction.
void reduce_into(const Exec& e, const memory& full, int k, void* grad) {
  const memory::desc target = input(e, k).get_desc();
  const memory dst = wrap(e, target, grad);
  memory sum = full;
  std::vector<float> storage;
  if (aligned_dims(e.call, k) != dims_of(e.call.output)) {
    const memory::desc sum_desc = plain_desc(target.dims(), GP_DTYPE_F32);
    storage.resize(sum_desc.get_size() / sizeof(float));
    sum = wrap(e, sum_desc, storage.data());
    const dnnl::reduction::primitive_desc pd({algorithm::reduction_sum, full.get_desc(), sum_desc, 0.f, 0.f}, e.engine);
    dnnl::reduction(pd).execute(e.stream, {{DNNL_ARG_SRC, full}, {DNNL_ARG_DST, sum}});
  }
  run_reorder(e, sum, dst);
}

void forward(const Exec& e, void* out) {
  Scratch x(e);
  run_binary(e, find(e.call.op)->forward, full_input0(e, x), input(e, 1),
             wrap(e, plain_desc(e.call.output, e.call.dtype), out));
}

void vjp(const Exec& e, const void* out, const void* dout, void* const* grads) {
  const std::string_view op = e.call.op;
  const memory::desc full_desc = plain_desc(e.call.output, e.call.dtype);
  std::vector<float> g32, x32, y32, out32;
  Scratch x_full(e), gx(e), gy(e);
  const memory g = as_f32(e, wrap(e, full_desc, dout), g32), y = as_f32(e, input(e, 1), y32),
               x = as_f32(e, full_input0(e, x_full), x32);
  if (op == "add" || op == "sub") {
    run_binary(e, algorithm::binary_add, gx.mem, g, gx.mem);
    run_binary(e, op == "add" ? algorithm::binary_add : algorithm::binary_sub, gy.mem, g, gy.mem);
  } else if (op == "mul") {
    run_binary(e, algorithm::binary_mul, g, y, gx.mem);
    run_binary(e, algorithm::binary_mul, g, x, gy.mem);
  } else if (op == "div") {
    run_binary(e, algorithm::binary_div, g, y, gx.mem);
    run_binary(e, algorithm::binary_mul, g, as_f32(e, wrap(e, full_desc, out), out32), gy.mem);
    run_binary(e, algorithm::binary_div, gy.mem, y, gy.mem);
    Scratch zero(e);
    run_binary(e, algorithm::binary_sub, zero.mem, gy.mem, gy.mem);
  } else {  // maximum, minimum: the selected input takes the gradient (inputs never tie)
    run_binary(e, op == "maximum" ? algorithm::binary_gt : algorithm::binary_lt, x, y, gx.mem);
    run_binary(e, algorithm::binary_mul, gx.mem, g, gx.mem);
    run_binary(e, algorithm::binary_sub, g, gx.mem, gy.mem);
  }
  if (grads[0]) reduce_into(e, gx.mem, 0, grads[0]);
  if (grads[1]) reduce_into(e, gy.mem, 1, grads[1]);
}

bool has(const char* op) { return find(op) != nullptr; }

std::optional<std::string> cannot_run(const dnnl::engine& engine, const gp_op_call& c) {
  return creation_failure([&] {
    const memory::desc y = plain_desc(aligned_dims(c, 1), c.dtype);
    const memory::desc out = plain_desc(c.output, c.dtype);
    dnnl::binary::primitive_desc({find(c.op)->forward, out, y, out}, engine);
  });
}

}  // namespace
}  // namespace binary_impl

const Family binary_family{binary_impl::has, binary_impl::cannot_run, binary_impl::forward, binary_impl::vjp};

}  // namespace gp_onednn
