#include "harness/graph/composite_graph.hpp"

#include "core/error.hpp"
#include "harness/check/phase_clock.hpp"
#include "harness/check/poison.hpp"

namespace gp {

NodeOps exact_node_ops() {
  return {[](const OpCall& call, const std::vector<ref::RefTensor>& in) { return ref::forward(call, in); },
          [](const OpCall& call, const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout) {
            return ref::vjp(call, in, ref::RefTensor{}, dout);
          }};
}

NodeOps bounded_node_ops(const MathProfile* profile, bool flush) {
  return {[=](const OpCall& call, const std::vector<ref::RefTensor>& in) {
            return ref::bounded_node_forward(call, in, profile, flush);
          },
          [=](const OpCall& call, const std::vector<ref::RefTensor>& in, const ref::RefTensor& dout) {
            return ref::bounded_node_vjp(call, in, dout, profile, flush);
          }};
}

std::vector<ref::RefTensor> widened(const std::vector<HostTensor>& leaves) {
  std::vector<ref::RefTensor> out;
  out.reserve(leaves.size());
  for (const auto& t : leaves) out.push_back(ref::RefTensor::from_host(t));
  return out;
}

std::set<std::string> tensors_with_gradient(const Composite& c) {
  std::set<std::string> on_path;
  for (const auto& l : c.decl.leaves)
    if (l.gradient) on_path.insert(l.name);
  for (const auto& n : c.decl.nodes)
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (on_path.count(n.inputs[k]) && input_is_differentiable(n.op, static_cast<int>(k))) on_path.insert(n.output);
  return on_path;
}

namespace {

OpCall sum_call(const Composite& c, const Shape& s) {
  return make_call(OpKind::add, {}, c.dtype, {s, s}, c.id + " gradient sum");
}

// Visits the nodes in reverse order with the gradient of their output; `give(name, gradient)`
// receives every VJP of an input that gets a gradient.
template <class Grad, class Vjp, class Give>
void reverse_pass(const Composite& c, std::map<std::string, Grad>& grads, const Vjp& vjp, const Give& give) {
  const std::set<std::string> needs = tensors_with_gradient(c);
  for (std::size_t i = c.decl.nodes.size(); i-- > 0;) {
    const NodeDecl& n = c.decl.nodes[i];
    auto it = grads.find(n.output);
    if (it == grads.end()) continue;
    bool any = false;
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      any = any || (needs.count(n.inputs[k]) && input_is_differentiable(n.op, static_cast<int>(k)));
    if (!any) continue;
    std::vector<Grad> g = vjp(i, it->second);
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (needs.count(n.inputs[k]) && input_is_differentiable(n.op, static_cast<int>(k)))
        give(n.inputs[k], std::move(g[k]));
  }
}

}  // namespace

GraphTensors evaluate_graph(const Composite& c, const std::vector<ref::RefTensor>& leaves, const NodeOps& ops,
                            bool backward, long double d_loss) {
  GraphTensors t;
  for (std::size_t k = 0; k < c.decl.leaves.size(); ++k) t.value[c.decl.leaves[k].name] = leaves.at(k);
  auto inputs_of = [&](const NodeDecl& n) {
    std::vector<ref::RefTensor> in;
    for (const auto& name : n.inputs) in.push_back(t.value.at(name));
    return in;
  };
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i)
    t.value[c.decl.nodes[i].output] = ops.forward(c.calls[i], inputs_of(c.decl.nodes[i]));
  if (!backward) return t;
  ref::RefTensor seed;
  seed.shape = c.shapes.at(c.decl.loss);
  seed.v.assign(1, d_loss);
  t.grad[c.decl.loss] = seed;
  reverse_pass(
      c, t.grad,
      [&](std::size_t i, const ref::RefTensor& dout) { return ops.vjp(c.calls[i], inputs_of(c.decl.nodes[i]), dout); },
      [&](const std::string& name, ref::RefTensor g) {
        auto [it, fresh] = t.grad.emplace(name, g);
        if (!fresh) it->second = ops.forward(sum_call(c, g.shape), {it->second, g});
      });
  return t;
}

std::vector<OpCall> device_calls_of(const Composite& c) {
  std::vector<OpCall> calls = c.calls;
  for (const auto& [name, shape] : c.shapes) calls.push_back(sum_call(c, shape));
  return calls;
}

DeviceBuffer* upload_to_pool(Backend& backend, Queue& queue, DevicePool& pool, const HostTensor& h) {
  pool.push_back(backend.allocate(h.dtype(), h.shape()));
  queue.upload(*pool.back(), h);
  return pool.back().get();
}

DeviceTensors run_graph_on_buffers(const Composite& c, Backend& backend, Queue& queue,
                                   std::map<std::string, DeviceBuffer*> leaves, DevicePool& pool, const GraphRun& how) {
  auto allocate = [&](DType dtype, const Shape& s) {
    pool.push_back(backend.allocate(dtype, s));
    return pool.back().get();
  };
  auto poisoned = [&](const Shape& s) {
    DeviceBuffer* buf = allocate(c.dtype, s);
    if (how.poison) queue.upload(*buf, poison_tensor(c.dtype, s));
    return buf;
  };
  DeviceTensors t;
  t.value = std::move(leaves);
  auto inputs_of = [&](std::size_t i) {
    std::vector<const DeviceBuffer*> in;
    for (const auto& name : c.decl.nodes[i].inputs) in.push_back(t.value.at(name));
    return in;
  };
  for (std::size_t i = 0; i < c.decl.nodes.size(); ++i) {
    DeviceBuffer* out = poisoned(c.calls[i].output_shape);
    queue.forward(c.calls[i], inputs_of(i), *out);
    t.value[c.decl.nodes[i].output] = out;
  }
  if (!how.backward) return t;
  HostTensor one(c.dtype, c.shapes.at(c.decl.loss));
  one.set(0, how.d_loss);
  queue.upload(*(t.grad[c.decl.loss] = allocate(c.dtype, one.shape())), one);
  reverse_pass(
      c, t.grad,
      [&](std::size_t i, DeviceBuffer* dout) {
        const NodeDecl& n = c.decl.nodes[i];
        std::vector<DeviceBuffer*> g(n.inputs.size(), nullptr);
        for (std::size_t k = 0; k < n.inputs.size(); ++k)
          if (input_is_differentiable(n.op, static_cast<int>(k))) g[k] = poisoned(c.calls[i].input_shapes[k]);
        queue.backward(c.calls[i], inputs_of(i), *t.value.at(n.output), *dout, g);
        return g;
      },
      [&](const std::string& name, DeviceBuffer* g) {
        auto [it, fresh] = t.grad.emplace(name, g);
        if (fresh) return;
        DeviceBuffer* sum = poisoned(g->shape());
        const DeviceBuffer* parts[] = {it->second, g};
        queue.forward(sum_call(c, g->shape()), parts, *sum);
        it->second = sum;
      });
  return t;
}

CallWork graph_work(const Composite& c, bool backward) {
  CallWork w;
  auto add = [&w](const CallWork& x) {
    w.bytes += x.bytes;
    w.flops += x.flops;
  };
  for (const OpCall& call : c.calls) add(forward_work(call));
  if (!backward) return w;
  std::map<std::string, Shape> grads = {{c.decl.loss, c.shapes.at(c.decl.loss)}};
  reverse_pass(
      c, grads,
      [&](std::size_t i, const Shape&) {
        add(backward_work(c.calls[i]));
        return c.calls[i].input_shapes;
      },
      [&](const std::string& name, const Shape& g) {
        if (!grads.emplace(name, g).second) add(forward_work(sum_call(c, g)));
      });
  return w;
}

DeviceGraph run_graph_on_device(const Composite& c, Backend& backend, Queue& queue,
                                const std::vector<HostTensor>& leaves, const GraphRun& how) {
  DeviceCallsTimer timer(queue);
  // Every buffer lives until the queue has finished (a buffer may not die while work that uses
  // it is in flight); the maps point into the pool.
  DevicePool pool;
  std::map<std::string, DeviceBuffer*> uploaded;
  for (std::size_t k = 0; k < c.decl.leaves.size(); ++k)
    uploaded[c.decl.leaves[k].name] = upload_to_pool(backend, queue, pool, leaves.at(k));
  const DeviceTensors t = run_graph_on_buffers(c, backend, queue, std::move(uploaded), pool, how);
  // Everything in one download_all: one wait for the whole graph where the backend can.
  std::vector<const DeviceBuffer*> wanted = {t.value.at(c.decl.output), t.value.at(c.decl.loss)};
  std::vector<std::string> grad_names;
  for (const auto& l : c.decl.leaves)
    if (auto it = t.grad.find(l.name); it != t.grad.end()) {
      wanted.push_back(it->second);
      grad_names.push_back(l.name);
    }
  if (how.keep_all) {
    for (const auto& [name, buf] : t.value) wanted.push_back(buf);
    for (const auto& [name, buf] : t.grad) wanted.push_back(buf);
  }
  std::vector<HostTensor> back = queue.download_all(wanted);
  DeviceGraph d;
  auto next = back.begin();
  d.output = std::move(*next++);
  d.loss = std::move(*next++);
  for (const auto& name : grad_names) d.grads[name] = std::move(*next++);
  if (how.keep_all) {
    for (const auto& [name, buf] : t.value) d.values[name] = std::move(*next++);
    for (const auto& [name, buf] : t.grad) d.grads[name] = std::move(*next++);
  }
  queue.finish();
  return d;
}

CompositeTensors run_composite_keeping_all(const Composite& c, Backend& backend, Queue& queue,
                                           const CompositeReference& r) {
  DeviceGraph d = run_graph_on_device(c, backend, queue, r.leaves, {.backward = true, .keep_all = true});
  return {std::move(d.values), std::move(d.grads)};
}

}  // namespace gp
