// tt_embedding (core/README.md): each output element is the sum of r1 r2 triple products of the
// cores' slices that the row's id selects; the V x D table is never formed, and nothing is
// allocated beyond the ids' digits (3 integers per row). Core gradients are cleared and then
// summed over the batch rows in order, so repeated ids add up the same way every run and every
// element is overwritten (a slice no id selects gets 0).
#include "backends/cpu/kernels/kernel_args.hpp"

namespace gp::cpu {

namespace {

using Digits = TtGeometry::Digits;

std::vector<Digits> id_digits(const OpCall& call, const TtGeometry& g, const std::int32_t* ids) {
  std::vector<Digits> out;
  for (std::int64_t b = 0; b < g.batch; ++b) {
    if (ids[b] < 0 || ids[b] >= g.vocabulary())
      fail(call, "id " + std::to_string(ids[b]) + " of row " + std::to_string(b) + " is outside the vocabulary of " +
                     std::to_string(g.vocabulary()));
    out.push_back(g.digits(ids[b]));
  }
  return out;
}

}  // namespace

template <typename T>
void tt_embedding_forward(const ForwardArgs<T>& a) {
  const TtGeometry g = tt_geometry(a.call);
  const T *g1 = a.x[1], *g2 = a.x[2], *g3 = a.x[3];
  const std::vector<Digits> ids = id_digits(a.call, g, a.labels);
  std::fill_n(a.y, g.batch * g.dim(), T(0));
  g.for_each_term([&](auto b, auto j1, auto j2, auto j3, auto r, auto c) {
    const Digits& i = ids[static_cast<std::size_t>(b)];
    a.y[g.out_at(b, j1, j2, j3)] += g1[g.g1_at(i.i1, j1, r)] * g2[g.g2_at(i.i2, r, j2, c)] * g3[g.g3_at(i.i3, c, j3)];
  });
}

// Each core gradient is cleared, then every term adds into the three elements it belongs to;
// one thread, in for_each_term's order, so the sums of repeated ids come out the same every run.
template <typename T>
void tt_embedding_backward(const BackwardArgs<T>& a) {
  const TtGeometry g = tt_geometry(a.call);
  const T *g1 = a.x[1], *g2 = a.x[2], *g3 = a.x[3];
  T *d1 = a.dx[1], *d2 = a.dx[2], *d3 = a.dx[3];
  const std::vector<Digits> ids = id_digits(a.call, g, a.labels);
  for (std::size_t k = 1; k <= 3; ++k) clear_gradient(a.dx[k], a.call.input_shapes[k].numel());
  g.for_each_term([&](auto b, auto j1, auto j2, auto j3, auto r, auto c) {
    const Digits& i = ids[static_cast<std::size_t>(b)];
    const std::int64_t k1 = g.g1_at(i.i1, j1, r), k2 = g.g2_at(i.i2, r, j2, c), k3 = g.g3_at(i.i3, c, j3);
    const T dy = a.dy[g.out_at(b, j1, j2, j3)];
    if (d1) d1[k1] += dy * g2[k2] * g3[k3];
    if (d2) d2[k2] += dy * g1[k1] * g3[k3];
    if (d3) d3[k3] += dy * g1[k1] * g2[k2];
  });
}

GP_CPU_INSTANTIATE(tt_embedding_forward, tt_embedding_backward)

}  // namespace gp::cpu
