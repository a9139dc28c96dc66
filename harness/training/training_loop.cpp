#include "harness/training/training_loop.hpp"

#include "harness/check/phase_clock.hpp"
#include "harness/check/poison.hpp"

namespace gp {

namespace {

// Indices of the leaves the optimizer updates.
std::vector<std::size_t> parameters_of(const Composite& c) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < c.decl.leaves.size(); ++k)
    if (c.decl.leaves[k].parameter && c.decl.leaves[k].gradient) out.push_back(k);
  return out;
}

int state_count(const Composite& c) { return optimizer_rows(c.decl.training->optimizer) - 1; }

// Step `step` (from 1) of the optimizer on one parameter: inputs parameter, gradient, states.
OpCall optimizer_call(const Composite& c, const LeafDecl& p, int step) {
  OpAttrs a = c.decl.training->attrs;
  a.t = step;
  a.first = step == 1;
  std::vector<Shape> shapes(static_cast<std::size_t>(2 + state_count(c)), p.shape);
  return make_call(c.decl.training->optimizer, a, c.dtype, shapes,
                   c.id + " step " + std::to_string(step) + " " + p.name);
}

ref::RefTensor row_of(const ref::RefTensor& stacked, int row, const Shape& shape) {
  const auto n = static_cast<std::size_t>(shape.numel());
  ref::RefTensor t;
  t.shape = shape;
  t.v.assign(stacked.v.begin() + static_cast<std::ptrdiff_t>(row * n),
             stacked.v.begin() + static_cast<std::ptrdiff_t>((row + 1) * n));
  return t;
}

ref::RefTensor zeros(const Shape& s) {
  ref::RefTensor t;
  t.shape = s;
  t.v.assign(static_cast<std::size_t>(s.numel()), 0.0L);
  return t;
}

}  // namespace

std::vector<OpCall> training_calls_of(const Composite& c) {
  std::vector<OpCall> out;
  if (!c.decl.training) return out;
  for (std::size_t k : parameters_of(c)) out.push_back(optimizer_call(c, c.decl.leaves[k], 1));
  for (auto& call : micro_batch_calls_of(c)) out.push_back(std::move(call));
  return out;
}

std::vector<std::string> slot_names(const Composite& c) {
  const bool adam = c.decl.training->optimizer == OpKind::adamw_step;
  std::vector<std::string> out;
  for (std::size_t k : parameters_of(c)) {
    const std::string& p = c.decl.leaves[k].name;
    out.push_back(p);
    if (adam) {
      out.push_back(p + " m");
      out.push_back(p + " v");
    } else {
      out.push_back(p + " momentum");
    }
  }
  return out;
}

Trajectory train_on_reference(const Composite& c, std::vector<ref::RefTensor> leaves, const NodeOps& ops) {
  const std::vector<std::size_t> params = parameters_of(c);
  const int states = state_count(c);
  std::vector<std::vector<ref::RefTensor>> state;
  state.reserve(params.size());
  for (std::size_t k : params) state.emplace_back(static_cast<std::size_t>(states), zeros(c.decl.leaves[k].shape));
  Trajectory out;
  for (int step = 1; step <= c.decl.training->steps; ++step) {
    const GraphTensors g = evaluate_graph(c, leaves, ops);
    out.loss.push_back(g.value.at(c.decl.loss).v.at(0));
    std::vector<ref::RefTensor> after;
    for (std::size_t i = 0; i < params.size(); ++i) {
      const LeafDecl& p = c.decl.leaves[params[i]];
      std::vector<ref::RefTensor> in = {leaves[params[i]], g.grad.at(p.name)};
      in.insert(in.end(), state[i].begin(), state[i].end());
      const ref::RefTensor stacked = ops.forward(optimizer_call(c, p, step), in);
      leaves[params[i]] = row_of(stacked, 0, p.shape);
      after.push_back(leaves[params[i]]);
      for (int s = 0; s < states; ++s)
        after.push_back(state[i][static_cast<std::size_t>(s)] = row_of(stacked, s + 1, p.shape));
    }
    out.slots.push_back(std::move(after));
  }
  return out;
}

DeviceTrajectory train_on_device(const Composite& c, Backend& backend, Queue& queue,
                                 const std::vector<HostTensor>& leaves) {
  DeviceCallsTimer timer(queue);
  DevicePool pool;
  auto upload = [&](const HostTensor& h) { return upload_to_pool(backend, queue, pool, h); };
  std::map<std::string, DeviceBuffer*> values;
  for (std::size_t k = 0; k < leaves.size(); ++k) values[c.decl.leaves[k].name] = upload(leaves[k]);
  const std::vector<std::size_t> params = parameters_of(c);
  const int states = state_count(c);
  std::vector<std::vector<DeviceBuffer*>> state;
  state.reserve(params.size());
  for (std::size_t k : params)
    state.emplace_back(static_cast<std::size_t>(states), upload(HostTensor(c.dtype, c.decl.leaves[k].shape)));
  // Row r of a stacked optimizer output, as a tensor of the parameter's shape, by the device's
  // own slice and reshape (exact moves).
  auto row = [&](DeviceBuffer& stacked, int r, const Shape& shape) {
    OpAttrs pick;
    pick.axis = 0;
    pick.start = r;
    pick.stop = r + 1;
    const OpCall slice = make_call(OpKind::slice, pick, c.dtype, {stacked.shape()}, c.id + " optimizer row");
    pool.push_back(backend.allocate(c.dtype, slice.output_shape));
    DeviceBuffer* one = pool.back().get();
    const DeviceBuffer* from[] = {&stacked};
    queue.forward(slice, from, *one);
    OpAttrs as;
    as.shape = shape.dims();
    const OpCall reshape = make_call(OpKind::reshape, as, c.dtype, {one->shape()}, c.id + " optimizer row");
    pool.push_back(backend.allocate(c.dtype, shape));
    const DeviceBuffer* part[] = {one};
    queue.forward(reshape, part, *pool.back());
    return pool.back().get();
  };
  std::vector<DeviceBuffer*> losses;
  std::vector<std::vector<DeviceBuffer*>> slots;
  for (int step = 1; step <= c.decl.training->steps; ++step) {
    const DeviceTensors g = run_graph_on_buffers(c, backend, queue, values, pool);
    losses.push_back(g.value.at(c.decl.loss));
    std::vector<DeviceBuffer*> after;
    for (std::size_t i = 0; i < params.size(); ++i) {
      const LeafDecl& p = c.decl.leaves[params[i]];
      const OpCall call = optimizer_call(c, p, step);
      pool.push_back(backend.allocate(c.dtype, call.output_shape));
      DeviceBuffer* stacked = pool.back().get();
      queue.upload(*stacked, poison_tensor(c.dtype, call.output_shape));
      std::vector<const DeviceBuffer*> in = {values.at(p.name), g.grad.at(p.name)};
      in.insert(in.end(), state[i].begin(), state[i].end());
      queue.forward(call, in, *stacked);
      after.push_back(values[p.name] = row(*stacked, 0, p.shape));
      for (int s = 0; s < states; ++s)
        after.push_back(state[i][static_cast<std::size_t>(s)] = row(*stacked, s + 1, p.shape));
    }
    slots.push_back(std::move(after));
  }
  std::vector<const DeviceBuffer*> wanted(losses.begin(), losses.end());
  for (const auto& step : slots) wanted.insert(wanted.end(), step.begin(), step.end());
  std::vector<HostTensor> back = queue.download_all(wanted);
  DeviceTrajectory out;
  auto next = back.begin();
  for (std::size_t i = 0; i < losses.size(); ++i) out.loss.push_back((next++)->get(0));
  for (const auto& step : slots) {
    out.slots.emplace_back();
    for (std::size_t i = 0; i < step.size(); ++i) out.slots.back().push_back(std::move(*next++));
  }
  queue.finish();
  return out;
}

}  // namespace gp
