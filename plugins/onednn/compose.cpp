// The primitive runs that composed gradients share (binary, reduction and layer_norm's weights):
// f32 scratch, binary, reorder, conversion to f32.
#include "onednn_ops.hpp"

namespace gp_onednn {

using dnnl::memory;

F32Scratch::F32Scratch(const Exec& e, const memory::dims& dims, float fill)
    : data(plain_desc(dims, GP_DTYPE_F32).get_size() / sizeof(float), fill),
      mem(wrap(e, plain_desc(dims, GP_DTYPE_F32), data.data())) {}

void run_binary(const Exec& e, dnnl::algorithm algo, const memory& a, const memory& b, const memory& dst) {
  const dnnl::binary::primitive_desc pd({algo, a.get_desc(), b.get_desc(), dst.get_desc()}, e.engine);
  dnnl::binary(pd).execute(e.stream, {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}, {DNNL_ARG_DST, dst}});
}

void run_reorder(const Exec& e, const memory& from, const memory& to) {
  dnnl::reorder(from, to).execute(e.stream, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
}

memory as_f32(const Exec& e, const memory& m, std::vector<float>& storage) {
  if (m.get_desc().data_type() == memory::data_type::f32) return m;
  const memory::desc f32 = plain_desc(m.get_desc().dims(), GP_DTYPE_F32);
  storage.resize(f32.get_size() / sizeof(float));
  const memory copy = wrap(e, f32, storage.data());
  run_reorder(e, m, copy);
  return copy;
}

}  // namespace gp_onednn
