// Gradient accumulation over micro-batches (docs/training.md): the first step's batch split into
// the declared micro-batches, each one's forward and backward through the backend's kernels from
// d loss = 1 / M (PyTorch's (loss / M).backward()), the gradients summed on the device by its
// `add`; every parameter's sum against the reference's full-batch gradient, within a bound from
// probes of every node's own error through the same micro-batched computation.
#include <cmath>

#include "core/error.hpp"
#include "harness/check/compare.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/check/poison.hpp"
#include "harness/graph/composite_checks.hpp"
#include "harness/training/training_loop.hpp"

namespace gp {

namespace {

// The axis along which a leaf of the full batch is `parts` leaves of the micro-batch; -1 for a
// leaf they share (a parameter).
int batch_axis(const LeafDecl& full, const LeafDecl& micro, int parts) {
  int axis = -1;
  for (int k = 0; k < full.shape.rank(); ++k)
    if (full.shape[k] != micro.shape[k]) {
      if (axis >= 0 || full.shape[k] != parts * micro.shape[k] || full.shape.rank() != micro.shape.rank())
        throw Error("micro-batch leaf " + micro.name + " " + micro.shape.to_string() + " is not 1/" +
                    std::to_string(parts) + " of " + full.shape.to_string() + " along one axis");
      axis = k;
    }
  return axis;
}

// Rows [part * n, (part + 1) * n) of `t` along `axis`, n its size there / parts: an exact copy.
HostTensor part_of(const HostTensor& t, const Shape& micro, int axis, int part) {
  HostTensor out(t.dtype(), micro);
  const AxisSplit from = split_at_axis(t.shape(), axis), to = split_at_axis(micro, axis);
  for (std::int64_t o = 0; o < to.outer; ++o)
    for (std::int64_t j = 0; j < to.n; ++j)
      for (std::int64_t i = 0; i < to.inner; ++i)
        out.set((o * to.n + j) * to.inner + i, t.get((o * from.n + part * to.n + j) * from.inner + i));
  return out;
}

struct MicroBatches {
  Composite graph;                              // the model at batch / M
  std::vector<std::vector<HostTensor>> leaves;  // [micro-batch][leaf]
  std::vector<std::string> parameters;          // the accumulated gradients' leaves
};

MicroBatches split(const Composite& c, const std::vector<HostTensor>& leaves) {
  const TrainingDecl& t = *c.decl.training;
  MicroBatches m{make_composite(*t.micro_batch, c.dtype), {}, {}};
  m.leaves.resize(static_cast<std::size_t>(t.micro_batches));
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const LeafDecl& micro = m.graph.decl.leaves.at(k);
    if (micro.name != c.decl.leaves[k].name) throw Error(c.id + ": the micro-batch's leaves differ in order");
    const int axis = batch_axis(c.decl.leaves[k], micro, t.micro_batches);
    for (int p = 0; p < t.micro_batches; ++p)
      m.leaves[static_cast<std::size_t>(p)].push_back(axis < 0 ? leaves[k] : part_of(leaves[k], micro.shape, axis, p));
    if (micro.parameter && micro.gradient) m.parameters.push_back(micro.name);
  }
  return m;
}

OpCall accumulation_call(const Composite& c, const Shape& s) {
  return make_call(OpKind::add, {}, c.dtype, {s, s}, c.id + " micro-batch accumulation");
}

// The parameters' gradients summed over the micro-batches, flattened in parameter order.
std::vector<long double> accumulate_on_reference(const Composite& c, const MicroBatches& m, const NodeOps& ops) {
  const long double scale = 1.0L / static_cast<long double>(m.leaves.size());
  std::map<std::string, ref::RefTensor> sum;
  for (const auto& part : m.leaves) {
    const GraphTensors g = evaluate_graph(m.graph, widened(part), ops, true, scale);
    for (const auto& p : m.parameters) {
      auto [it, fresh] = sum.emplace(p, g.grad.at(p));
      if (!fresh) it->second = ops.forward(accumulation_call(c, it->second.shape), {it->second, g.grad.at(p)});
    }
  }
  std::vector<long double> flat;
  for (const auto& p : m.parameters) flat.insert(flat.end(), sum.at(p).v.begin(), sum.at(p).v.end());
  return flat;
}

std::map<std::string, HostTensor> accumulate_on_device(const Composite& c, const MicroBatches& m, Backend& backend,
                                                       Queue& queue) {
  DeviceCallsTimer timer(queue);
  DevicePool pool;
  auto upload = [&](const HostTensor& h) { return upload_to_pool(backend, queue, pool, h); };
  // The parameters are uploaded once and read by every micro-batch.
  std::map<std::string, DeviceBuffer*> shared;
  for (std::size_t k = 0; k < m.graph.decl.leaves.size(); ++k)
    if (m.graph.decl.leaves[k].parameter) shared[m.graph.decl.leaves[k].name] = upload(m.leaves[0][k]);
  const double scale = 1.0 / static_cast<double>(m.leaves.size());
  std::map<std::string, DeviceBuffer*> sum;
  for (const auto& part : m.leaves) {
    std::map<std::string, DeviceBuffer*> leaves = shared;
    for (std::size_t k = 0; k < part.size(); ++k)
      if (!m.graph.decl.leaves[k].parameter) leaves[m.graph.decl.leaves[k].name] = upload(part[k]);
    const DeviceTensors g = run_graph_on_buffers(m.graph, backend, queue, leaves, pool, {.d_loss = scale});
    for (const auto& p : m.parameters) {
      DeviceBuffer* grad = g.grad.at(p);
      auto [it, fresh] = sum.emplace(p, grad);
      if (fresh) continue;
      const OpCall add = accumulation_call(c, grad->shape());
      DeviceBuffer* next = upload(poison_tensor(c.dtype, add.output_shape));
      const DeviceBuffer* in[] = {it->second, grad};
      queue.forward(add, in, *next);
      it->second = next;
    }
  }
  std::vector<const DeviceBuffer*> wanted;
  wanted.reserve(sum.size());
  for (const auto& [p, buffer] : sum) wanted.push_back(buffer);
  std::vector<HostTensor> back = queue.download_all(wanted);
  std::map<std::string, HostTensor> out;
  auto next = back.begin();
  for (const auto& [p, buffer] : sum) out.emplace(p, std::move(*next++));
  queue.finish();
  return out;
}

}  // namespace

std::vector<OpCall> micro_batch_calls_of(const Composite& c) {
  const Composite micro = make_composite(*c.decl.training->micro_batch, c.dtype);
  std::vector<OpCall> calls = device_calls_of(micro);
  for (const auto& [name, shape] : micro.shapes) calls.push_back(accumulation_call(c, shape));
  return calls;
}

std::vector<CheckResult> check_micro_batches(const Composite& c, const DeviceContext& device,
                                             const CompositeReference& r, const Tolerance& tol, std::uint64_t seed) {
  Backend& backend = *device.backend;
  const MicroBatches m = split(c, r.leaves);
  const MathProfile* profile = backend.info().math;
  const bool flush = backend.info().may_flush_subnormals;
  CacheKeyBuilder key = composite_cache_key("micro-batch-bound", c, r);
  const std::vector<long double> rms = cached_bounds<std::vector<long double>>(r.cache, key, profile, flush, [&] {
    return probe_rms([&](const NodeOps& ops) { return accumulate_on_reference(c, m, ops); },
                     {profile, flush, r.node_bounds(), r.cache}, kTrainingProbes, {c.id, "micro-batch probe "});
  });
  const std::map<std::string, HostTensor> got = accumulate_on_device(c, m, backend, *device.queue);
  const std::string how = "bound through the " + std::to_string(m.leaves.size()) +
                          " micro-batches and their sums: " + training_bound_text();
  std::vector<CheckResult> out;
  std::size_t at = 0;
  for (const auto& p : m.parameters) {
    ref::RefTensor expected = r.exact.grad.at(p);  // the full batch's
    for (std::size_t j = 0; j < expected.v.size(); ++j) expected.err.push_back(training_probe_error(rms.at(at++)));
    const std::string part = "grad " + p + " accumulated over " + std::to_string(m.leaves.size()) + " micro-batches";
    out.push_back(training_check(blank_composite_result(c, device.id, Direction::forward, part, seed), expected,
                                 got.at(p), tol, 0, how));
  }
  return out;
}

}  // namespace gp
