// tt_embedding: rows of a tensor-train embedding table, contracted from the three cores without
// the table (core's TtGeometry). Output element (b, j1, j2, j3) of id i = (i1, i2, i3) is
//   E = sum_{a, c} (G1[i1, 0, j1, a] G2[i2, a, j2, c]) G3[i3, c, j3, 0]:  r1 r2 triple products.
// Each core-gradient element is one flat sum of triple products over the batch rows whose id
// uses its slice (in batch order) and the positions and ranks of the other two cores:
//   dG1[i1, 0, j1, a] = sum_{b: i1(b) = i1} sum_{j2, j3, c} (dE[b, j] G2[i2, a, j2, c]) G3[i3, c, j3]
//   dG2[i2, a, j2, c] = sum_{b: i2(b) = i2} sum_{j1, j3}    (dE[b, j] G1[i1, j1, a]) G3[i3, c, j3]
//   dG3[i3, c, j3, 0] = sum_{b: i3(b) = i3} sum_{j1, j2, a} (dE[b, j] G1[i1, j1, a]) G2[i2, a, j2, c]
// A kernel computes each the same way (one product rounding inside a term, one for the term, an
// accumulation in any order: Sum<Tracked> bounds all of them); a kernel that contracts in stages
// (G1 G2 first) would round intermediate sums this bound does not hold.
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

using std::floor;

using Digits = TtGeometry::Digits;

template <class R>
std::vector<Digits> split_ids(const OpCall& call, const TtGeometry& g, const BasicRefTensor<R>& ids) {
  std::vector<Digits> out;
  for (std::int64_t b = 0; b < g.batch; ++b) {
    const R t = ids.v[at(b)];
    if (t != floor(t) || t < 0 || t >= real<R>(g.vocabulary()))
      fail(call, "id " + std::to_string(static_cast<double>(static_cast<long double>(t))) + " of row " +
                     std::to_string(b) + " is not in [0, " + std::to_string(g.vocabulary()) + ")");
    out.push_back(g.digits(static_cast<std::int64_t>(static_cast<long double>(t))));
  }
  return out;
}

}  // namespace

template <class R>
BasicRefTensor<R> tt_embedding_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const TtGeometry g = tt_geometry(call);
  const std::vector<R>&g1 = in[1].v, &g2 = in[2].v, &g3 = in[3].v;
  const std::vector<Digits> ids = split_ids(call, g, in[0]);
  std::vector<Sum<R>> e(at(g.batch * g.dim()));
  // for_each_term's order, each output element's r1 r2 terms summed in a local running sum; the
  // products G1 G2 of a row and (j1, j2) formed once for its d3 elements.
  std::vector<R> g12(at(g.r1 * g.r2));
  for (std::int64_t b = 0; b < g.batch; ++b) {
    const Digits& i = ids[at(b)];
    for (std::int64_t j1 = 0; j1 < g.d1; ++j1)
      for (std::int64_t j2 = 0; j2 < g.d2; ++j2) {
        for (std::int64_t a = 0; a < g.r1; ++a)
          for (std::int64_t c = 0; c < g.r2; ++c)
            g12[at(a * g.r2 + c)] = g1[at(g.g1_at(i.i1, j1, a))] * g2[at(g.g2_at(i.i2, a, j2, c))];
        for (std::int64_t j3 = 0; j3 < g.d3; ++j3) {
          Sum<R> sum;
          for (std::int64_t a = 0; a < g.r1; ++a)
            for (std::int64_t c = 0; c < g.r2; ++c)
              sum.add_product(g12[at(a * g.r2 + c)], g3[at(g.g3_at(i.i3, c, j3))]);
          e[at(g.out_at(b, j1, j2, j3))] = sum;
        }
      }
  }
  return results(call.output_shape, e);
}

// The terms of TtGeometry::for_each_term, output element by output element: each accumulator gets
// the same terms in the same order (a sum's result depends on nothing else), but the running sums
// of dG1 (over c, for each a) and dG3 (over a, for each c) stay in a local copy, and
// dE[b, j] G1[i1, j1, a] is formed once per a instead of twice per term (in long double the
// probes of a tensor-train model spent a tenth of a model run's time here).
template <class R>
std::vector<BasicRefTensor<R>> tt_embedding_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                                const BasicRefTensor<R>& dout) {
  const TtGeometry g = tt_geometry(call);
  const std::vector<R>&g1 = in[1].v, &g2 = in[2].v, &g3 = in[3].v;
  std::vector<Sum<R>> s1(at(in[1].numel())), s2(at(in[2].numel())), s3(at(in[3].numel()));
  const std::vector<Digits> ids = split_ids(call, g, in[0]);
  std::vector<R> dy_g1(at(g.r1));
  for (std::int64_t b = 0; b < g.batch; ++b) {
    const Digits& i = ids[at(b)];
    for (std::int64_t j1 = 0; j1 < g.d1; ++j1)
      for (std::int64_t j2 = 0; j2 < g.d2; ++j2)
        for (std::int64_t j3 = 0; j3 < g.d3; ++j3) {
          const R& dy = dout.v[at(g.out_at(b, j1, j2, j3))];
          for (std::int64_t a = 0; a < g.r1; ++a) {
            const std::int64_t k1 = g.g1_at(i.i1, j1, a);
            dy_g1[at(a)] = dy * g1[at(k1)];
            Sum<R> d1 = s1[at(k1)];
            for (std::int64_t c = 0; c < g.r2; ++c) {
              const std::int64_t k2 = g.g2_at(i.i2, a, j2, c), k3 = g.g3_at(i.i3, c, j3);
              d1.add_product(dy * g2[at(k2)], g3[at(k3)]);
              s2[at(k2)].add_product(dy_g1[at(a)], g3[at(k3)]);
            }
            s1[at(k1)] = d1;
          }
          for (std::int64_t c = 0; c < g.r2; ++c) {
            const std::int64_t k3 = g.g3_at(i.i3, c, j3);
            Sum<R> d3 = s3[at(k3)];
            for (std::int64_t a = 0; a < g.r1; ++a) d3.add_product(dy_g1[at(a)], g2[at(g.g2_at(i.i2, a, j2, c))]);
            s3[at(k3)] = d3;
          }
        }
  }
  return {no_grad<R>(in[0].shape), results(in[1].shape, s1), results(in[2].shape, s2), results(in[3].shape, s3)};
}

GP_REF_INSTANTIATE(tt_embedding)
}  // namespace gp::ref::detail
