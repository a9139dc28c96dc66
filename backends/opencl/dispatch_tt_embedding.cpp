// tt_embedding (kernels/tt_embedding.cl): one launch for the output, one per wanted core gradient.
// The kernels read the ids and cores in place and write only the output or the gradient: the
// call allocates nothing on the device.
#include "backends/opencl/detail.hpp"

namespace gp::opencl {

namespace {

struct TtArgs {
  cl_int4 geo, dims, ranks;
};

cl_int i32(std::int64_t v) { return static_cast<cl_int>(v); }

TtArgs tt_args(const OpCall& call) {
  const TtGeometry g = tt_geometry(call);
  return {{{i32(g.v1), i32(g.v2), i32(g.v3), i32(g.batch)}},
          {{i32(g.d1), i32(g.d2), i32(g.d3), 0}},
          {{i32(g.r1), i32(g.r2), 0, 0}}};
}

}  // namespace

void forward_tt_embedding(ClQueue& q, const OpCall& call, Inputs in, ClBuffer& out) {
  const TtArgs t = tt_args(call);
  q.run_elementwise("tt_embedding_fwd", call.output_shape.numel(), as_cl(in[0]), as_cl(in[1]), as_cl(in[2]),
                    as_cl(in[3]), out, t.geo, t.dims, t.ranks);
}

void backward_tt_embedding(ClQueue& q, const OpCall& call, Inputs in, const ClBuffer& dout, Grads grads) {
  const TtArgs t = tt_args(call);
  for (int core = 1; core <= 3; ++core) {
    if (!grads[static_cast<std::size_t>(core)]) continue;
    ClBuffer& dcore = as_cl(grads[static_cast<std::size_t>(core)]);
    q.run_elementwise("tt_embedding_bwd", call.input_shapes[static_cast<std::size_t>(core)].numel(), as_cl(in[0]),
                      as_cl(in[1]), as_cl(in[2]), as_cl(in[3]), dout, dcore, core, t.geo, t.dims, t.ranks);
  }
}

}  // namespace gp::opencl
