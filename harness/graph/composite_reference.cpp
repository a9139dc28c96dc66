// The reference side of a composite: seeded leaves kept clear of kinks, the graph in long double
// and, per device profile, in Tracked arithmetic.
#include <cmath>

#include "core/error.hpp"
#include "harness/check/inputs.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/graph/composite_graph.hpp"

namespace gp {

namespace {

// Kinked ops (relu, the hardtanh gate, ...) read values the graph computes, which no domain
// can keep away from the kinks. A value within this distance of a kink could land on the other
// side in a kernel's rounding (f32 pre-activations err by about 1e-6) and change the branch.
constexpr double kKinkClearance = 1e-3;
constexpr int kMaxKinkFreeDraws = 50;

// The first node input lying within the clearance of a kink of its op, in words; empty if none.
std::string near_kink(const Composite& c, const GraphTensors& t) {
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i) {
    const NodeDecl& n = c.decl.nodes[i];
    for (double k : op_kinks(n.op))
      for (long double v : t.value.at(n.inputs.at(0)).v)
        if (std::fabs(static_cast<double>(v) - k) < kKinkClearance * std::max(1.0, std::fabs(k)))
          return "node " + std::to_string(i) + " (" + std::string(op_name(n.op)) + ") input near its kink at " +
                 std::to_string(k);
  }
  return {};
}

// One-hot leaves hold digits of an integral leaf drawn before them (LeafDecl::one_hot_of).
void derive_one_hot_leaves(const Composite& c, std::vector<HostTensor>& leaves) {
  for (std::size_t k = 0; k < c.decl.leaves.size(); ++k) {
    const LeafDecl& l = c.decl.leaves[k];
    if (l.one_hot_of.empty()) continue;
    std::size_t from = 0;
    while (c.decl.leaves.at(from).name != l.one_hot_of) ++from;
    const std::int64_t radix = l.shape[1];
    HostTensor& hot = leaves[k];
    for (std::int64_t b = 0; b < l.shape[0]; ++b) {
      const auto digit = (static_cast<std::int64_t>(leaves[from].get(b)) / l.divisor) % radix;
      for (std::int64_t j = 0; j < radix; ++j) hot.set(b * radix + j, j == digit ? 1.0 : 0.0);
    }
  }
}

}  // namespace

CompositeReference prepare_composite_reference(const Composite& c, std::uint64_t seed, const LeafFill& fill) {
  Case draw = c.leaf_case();
  std::string why;
  for (int attempt = 0; attempt < kMaxKinkFreeDraws; ++attempt) {
    // Each redraw is a stream of its own, a function of the seed and the attempt alone.
    if (attempt > 0) draw.id = c.id + " redraw " + std::to_string(attempt);
    CompositeReference r;
    {
      PhaseTimer timer(Phase::inputs);
      r.leaves = make_inputs(draw, seed);
      derive_one_hot_leaves(c, r.leaves);
      if (fill) fill(r.leaves);
    }
    PhaseTimer timer(Phase::reference);
    r.exact = evaluate_graph(c, widened(r.leaves), exact_node_ops());
    why = near_kink(c, r.exact);
    if (why.empty()) return r;
  }
  throw Error(c.id + ": no draw of " + std::to_string(kMaxKinkFreeDraws) + " keeps every kinked node clear: " + why);
}

namespace {

// GraphTensors::loss_err; the path-by-path bound where some node's output has no gradient.
ref::ErrorBound gradient_weighted_loss_error(const Composite& c, const GraphTensors& exact, const GraphTensors& paths,
                                             const NodeForwardBounds& own_bounds) {
  ref::ErrorBound sum;
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i) {
    const NodeDecl& n = c.decl.nodes[i];
    auto g = exact.grad.find(n.output);
    if (g == exact.grad.end()) return paths.value.at(c.decl.loss).err.at(0);
    const ref::RefTensor& own = own_bounds.at(&c.calls[i]);  // at the reference's inputs
    for (std::size_t j = 0; j < own.err.size(); ++j) {
      const long double w = std::fabs(g->second.v[j]);
      sum.det += w * own.err[j].det;
      sum.acc += w * own.err[j].acc;
      sum.prob += w * own.err[j].prob;
      sum.spec += w * own.err[j].spec;
    }
  }
  return sum;
}

// What the checks read of a bounded evaluation (the output, the loss, the leaves' gradients): the
// intermediate tensors would take most of a cache entry.
GraphTensors checked_part(const Composite& c, GraphTensors t) {
  GraphTensors out;
  out.value[c.decl.output] = t.value.at(c.decl.output);
  out.value[c.decl.loss] = t.value.at(c.decl.loss);
  for (const auto& l : c.decl.leaves)
    if (auto it = t.grad.find(l.name); it != t.grad.end()) out.grad[l.name] = std::move(it->second);
  out.loss_err = t.loss_err;
  return out;
}

}  // namespace

CacheKeyBuilder composite_cache_key(std::string_view what, const Composite& c, const CompositeReference& r) {
  CacheKeyBuilder key(what);
  key.add(c.id);
  for (const HostTensor& l : r.leaves) key.add(l);
  return key;
}

void encode(BlobWriter& w, const GraphTensors& t) { encode_fields(w, t.value, t.grad, t.loss_err); }
void decode(BlobReader& r, GraphTensors& t) { decode_fields(r, t.value, t.grad, t.loss_err); }

const GraphTensors& CompositeReference::bounded(const Composite& c, const MathProfile* profile, bool flush) const {
  return bounded_.get(profile, flush, [&](bool* reads_profile) {
    CacheKeyBuilder key = composite_cache_key("bounded", c, *this);
    return cached_bounds<GraphTensors>(
        cache, key, profile, flush,
        [&] {
          GraphTensors t = evaluate_graph(c, widened(leaves), bounded_node_ops(profile, flush));
          tighten_end_to_end_bounds(c, *this, t, profile, flush, [&](const NodeForwardBounds& own) {
            return gradient_weighted_loss_error(c, exact, t, own);
          });
          return checked_part(c, std::move(t));
        },
        reads_profile);
  });
}

}  // namespace gp
