// Descriptors and memory wrappers shared by the op families.
#include <cstring>

#include "onednn_ops.hpp"

namespace gp_onednn {

using dnnl::memory;

memory::data_type data_type(gp_dtype dtype) {
  switch (dtype) {
    case GP_DTYPE_F32:
      return memory::data_type::f32;
    case GP_DTYPE_BF16:
      return memory::data_type::bf16;
    default:  // oneDNN 2.6's CPU engine has no f64, and f16 only on avx512_fp16 for few primitives
      return memory::data_type::undef;
  }
}

memory::dims dims_of(const gp_tensor_desc& t) {
  if (t.rank == 0) return {1};
  return memory::dims(t.dims, t.dims + t.rank);
}

memory::desc plain_desc(const memory::dims& dims, gp_dtype dtype) {
  memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  return memory::desc(dims, data_type(dtype), strides);
}

memory::desc plain_desc(const gp_tensor_desc& t, gp_dtype dtype) { return plain_desc(dims_of(t), dtype); }

memory wrap(const Exec& e, const memory::desc& desc, const void* data) {
  // oneDNN takes a non-const handle; inputs are only read by the primitives they are passed to.
  return memory(desc, e.engine, const_cast<void*>(data));
}

bool op_is(const gp_op_call& call, const char* name) { return std::strcmp(call.op, name) == 0; }

int axis_of(const gp_op_call& c) {
  const int rank = c.inputs[0].rank == 0 ? 1 : c.inputs[0].rank;
  return c.attrs.axis < 0 ? c.attrs.axis + rank : c.attrs.axis;
}

}  // namespace gp_onednn
