// The end-to-end bound of a composite's output, loss and leaf gradients: each node's own error
// (its roundings and library budgets at the reference's inputs, the bound its node check holds it
// to) carried to those tensors by the graph's real Jacobian, first order, its size estimated with
// random-sign probes (docs/models.md, "The end-to-end bound").
//
// The path-by-path bound of the Tracked evaluation takes absolute values at every node, so an
// error that cancels on its way through two layers (W2 W1 is far smaller than |W2| |W1|) is
// counted in full, and a fan-out counts every route: the GRU's bound came out 10^6 times its
// error. With the Jacobian J from every node's own error e_k (|e_k| <= b_k, independent, mean
// zero, as the accumulation model assumes of roundings) to a checked element i,
//   sigma_i^2 = sum_k J_ik^2 b_k^2,  and  P(|sum_k J_ik e_k| > lambda sigma_i) < 2 exp(-lambda^2/2)
// (Hoeffding). A probe puts e_k = s_k b_k with random signs s_k into every node's output in a
// long-double run of the whole graph, forward and backward; the change of element i is
// sum_k J_ik s_k b_k (to first order; long double keeps the second order below 1e-12 of it), whose
// mean square over the signs is sigma_i^2. The checked bound is the smaller of the path-by-path
// worst case and lambda times kProbeSafety times the probes' root mean square.
#include <cmath>

#include "harness/check/tolerance.hpp"
#include "harness/graph/composite_graph.hpp"

namespace gp {

namespace {

// The probes' mean square is a chi-square of kProbes degrees of freedom times sigma^2 / kProbes
// where many terms contribute: sigma exceeds kProbeSafety times the root mean square with
// probability 3.8e-5 (40 probes, 1.7; 64 probes and 1.5 gave 3.4e-5 for 1.6 times the probes,
// which were a third of the wide KAN's time). Where a few terms dominate, each probe carries the
// largest of them in full and the true error is within a small multiple of it.
constexpr int kProbes = 40;
constexpr double kProbeSafety = 1.7;

std::vector<ref::RefTensor> without_error(std::vector<ref::RefTensor> in) {
  for (auto& t : in) t.err.clear();
  return in;
}

}  // namespace

NodeOps recording_node_ops(const BoundArithmetic& a, LocalBounds& local,
                           std::map<const OpCall*, ref::RefTensor>* forward) {
  return {[=, &local](const OpCall& call, const std::vector<ref::RefTensor>& in) {
            ref::RefTensor own = a.memo.forward(call, without_error(in), a.profile, a.flush, a.cache);
            local.push_back({radii_of(own)});
            if (forward) forward->emplace(&call, std::move(own));
            return ref::forward(call, in);
          },
          [=, &local](const OpCall& call, const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout) {
            ref::RefTensor d = dout;
            d.err.clear();
            local.push_back(a.memo.vjp_radii(call, without_error(in), d, a.profile, a.flush, a.cache));
            return ref::vjp(call, in, ref::RefTensor{}, dout);
          }};
}

NodeOps probing_node_ops(const LocalBounds& local, Rng& rng, std::size_t& next) {
  auto nudge = [&rng](ref::RefTensor& t, const Radii& r) {
    for (std::size_t j = 0; j < t.v.size(); ++j) t.v[j] += (rng.next() >> 63) ? r[j] : -r[j];
  };
  return {[&, nudge](const OpCall& call, const std::vector<ref::RefTensor>& in) {
            ref::RefTensor t = ref::forward(call, in);
            nudge(t, local.at(next++).at(0));
            return t;
          },
          [&, nudge](const OpCall& call, const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout) {
            std::vector<ref::RefTensor> g = ref::vjp(call, in, ref::RefTensor{}, dout);
            const std::vector<Radii>& r = local.at(next++);
            for (std::size_t k = 0; k < g.size(); ++k)
              if (!g[k].v.empty()) nudge(g[k], r.at(k));
            return g;
          }};
}

std::vector<long double> probe_rms(const ProbedRun& run, const BoundArithmetic& a, int probes,
                                   const ProbeStream& stream, std::map<const OpCall*, ref::RefTensor>* forward) {
  LocalBounds local;
  const std::vector<long double> exact = run(recording_node_ops(a, local, forward));
  std::vector<long double> squares(exact.size(), 0.0L);
  for (int p = 0; p < probes; ++p) {
    Rng rng = Rng::for_case(0, stream.id, stream.prefix + std::to_string(p));
    std::size_t next = 0;
    const std::vector<long double> moved = run(probing_node_ops(local, rng, next));
    for (std::size_t j = 0; j < exact.size(); ++j) squares[j] += (moved[j] - exact[j]) * (moved[j] - exact[j]);
  }
  for (auto& s : squares) s = std::sqrt(s / probes);
  return squares;
}

namespace {

// The checked tensors of a graph evaluation: output, loss, leaf gradients.
struct Checked {
  bool gradient;
  std::string name;
};
std::vector<Checked> checked_tensors(const Composite& c, const GraphTensors& exact) {
  std::vector<Checked> out = {{false, c.decl.output}, {false, c.decl.loss}};
  for (const auto& l : c.decl.leaves)
    if (exact.grad.count(l.name)) out.push_back({true, l.name});
  return out;
}
template <class Graph>
auto& tensor(Graph& t, const Checked& k) {
  return k.gradient ? t.grad.at(k.name) : t.value.at(k.name);
}

}  // namespace

ref::ErrorBound probe_error_bound(long double worst, long double rms, double safety) {
  ref::ErrorBound e;
  e.acc = worst / (1 + static_cast<long double>(kReferenceShare)) / kFormulation;
  e.prob = safety * rms;
  return e;
}

void tighten_end_to_end_bounds(const Composite& c, const CompositeReference& r, GraphTensors& bounded,
                               const MathProfile* profile, bool flush,
                               const std::function<ref::ErrorBound(const NodeForwardBounds&)>& worst_loss_error) {
  const GraphTensors& exact = r.exact;
  const std::vector<ref::RefTensor> leaves = widened(r.leaves);
  const std::vector<Checked> names = checked_tensors(c, exact);
  auto checked = [&](const NodeOps& ops) {
    const GraphTensors t = evaluate_graph(c, leaves, ops);
    std::vector<long double> flat;
    for (const auto& k : names) flat.insert(flat.end(), tensor(t, k).v.begin(), tensor(t, k).v.end());
    return flat;
  };
  NodeForwardBounds own;
  const std::vector<long double> rms =
      probe_rms(checked, {profile, flush, r.node_bounds(), r.cache}, kProbes, {c.id, "bound probe "}, &own);
  // The loss's worst case is the gradient-weighted one (GraphTensors::loss_err).
  bounded.loss_err = worst_loss_error(own);
  bounded.value.at(c.decl.loss).err.assign(1, bounded.loss_err);
  std::size_t at = 0;
  for (const auto& k : names)
    for (auto& e : tensor(bounded, k).err) e = probe_error_bound(propagated_error(e), rms.at(at++), kProbeSafety);
  bounded.loss_err = bounded.value.at(c.decl.loss).err.at(0);
}

}  // namespace gp
