#include "harness/training/training_loop.hpp"

#include <set>

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

// Row r of a stacked optimizer output as a tensor of the parameter's shape: the device's own
// slice and reshape (exact moves).
struct RowCalls {
  OpCall slice, reshape;
};
RowCalls row_calls(const Composite& c, const Shape& stacked, int r, const Shape& shape) {
  OpAttrs pick;
  pick.axis = 0;
  pick.start = r;
  pick.stop = r + 1;
  RowCalls out;
  out.slice = make_call(OpKind::slice, pick, c.dtype, {stacked}, c.id + " optimizer row");
  OpAttrs as;
  as.shape = shape.dims();
  out.reshape = make_call(OpKind::reshape, as, c.dtype, {out.slice.output_shape}, c.id + " optimizer row");
  return out;
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

DeviceTraining::DeviceTraining(const Composite& c, Backend& backend, Queue& queue,
                               const std::vector<HostTensor>& leaves, bool poison)
    : c_(c), backend_(backend), queue_(queue), params_(parameters_of(c)), poison_(poison) {
  for (std::size_t k = 0; k < leaves.size(); ++k) values_[c.decl.leaves[k].name] = upload(leaves[k]);
  const int states = state_count(c);
  state_.reserve(params_.size());
  for (std::size_t k : params_)
    state_.emplace_back(static_cast<std::size_t>(states), upload(HostTensor(c.dtype, c.decl.leaves[k].shape)));
}

DeviceBuffer* DeviceTraining::upload(const HostTensor& h) { return upload_to_pool(backend_, queue_, pool_, h); }

DeviceBuffer* DeviceTraining::row(DeviceBuffer& stacked, int r, const Shape& shape) {
  const RowCalls calls = row_calls(c_, stacked.shape(), r, shape);
  pool_.push_back(backend_.allocate(c_.dtype, calls.slice.output_shape));
  DeviceBuffer* one = pool_.back().get();
  const DeviceBuffer* from[] = {&stacked};
  queue_.forward(calls.slice, from, *one);
  pool_.push_back(backend_.allocate(c_.dtype, shape));
  const DeviceBuffer* part[] = {one};
  queue_.forward(calls.reshape, part, *pool_.back());
  return pool_.back().get();
}

DeviceTraining::Step DeviceTraining::step(int step) {
  const DeviceTensors g = run_graph_on_buffers(c_, backend_, queue_, values_, pool_, {.poison = poison_});
  Step out{g.value.at(c_.decl.loss), {}};
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const LeafDecl& p = c_.decl.leaves[params_[i]];
    const OpCall call = optimizer_call(c_, p, step);
    pool_.push_back(backend_.allocate(c_.dtype, call.output_shape));
    DeviceBuffer* stacked = pool_.back().get();
    if (poison_) queue_.upload(*stacked, poison_tensor(c_.dtype, call.output_shape));
    std::vector<const DeviceBuffer*> in = {values_.at(p.name), g.grad.at(p.name)};
    in.insert(in.end(), state_[i].begin(), state_[i].end());
    queue_.forward(call, in, *stacked);
    out.slots.push_back(values_[p.name] = row(*stacked, 0, p.shape));
    for (std::size_t s = 0; s < state_[i].size(); ++s)
      out.slots.push_back(state_[i][s] = row(*stacked, static_cast<int>(s) + 1, p.shape));
  }
  return out;
}

void DeviceTraining::release_spent() {
  std::set<const DeviceBuffer*> live;
  for (const auto& [name, buf] : values_) live.insert(buf);
  for (const auto& states : state_) live.insert(states.begin(), states.end());
  std::erase_if(pool_, [&live](const std::unique_ptr<DeviceBuffer>& b) { return !live.count(b.get()); });
}

CallWork training_step_work(const Composite& c) {
  CallWork w = graph_work(c, true);
  auto add = [&w](const CallWork& x) {
    w.bytes += x.bytes;
    w.flops += x.flops;
  };
  for (std::size_t k : parameters_of(c)) {
    const LeafDecl& p = c.decl.leaves[k];
    const OpCall call = optimizer_call(c, p, 2);
    add(forward_work(call));
    for (int r = 0; r <= state_count(c); ++r) {
      const RowCalls calls = row_calls(c, call.output_shape, r, p.shape);
      add(forward_work(calls.slice));
      add(forward_work(calls.reshape));
    }
  }
  return w;
}

DeviceTrajectory train_on_device(const Composite& c, Backend& backend, Queue& queue,
                                 const std::vector<HostTensor>& leaves) {
  DeviceCallsTimer timer(queue);
  DeviceTraining training(c, backend, queue, leaves);
  std::vector<DeviceBuffer*> losses;
  std::vector<std::vector<DeviceBuffer*>> slots;
  for (int step = 1; step <= c.decl.training->steps; ++step) {
    DeviceTraining::Step s = training.step(step);
    losses.push_back(s.loss);
    slots.push_back(std::move(s.slots));
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
