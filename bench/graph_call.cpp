#include "bench/graph_call.hpp"

namespace gp {

GraphCall::GraphCall(const Composite& c, Backend& backend, Queue& queue, const std::vector<HostTensor>& leaves)
    : c_(c), backend_(backend) {
  for (std::size_t k = 0; k < leaves.size(); ++k)
    leaves_[c.decl.leaves[k].name] = upload_to_pool(backend, queue, leaf_buffers_, leaves[k]);
  run_graph_on_buffers(c_, backend_, queue, leaves_, scratch_, {.poison = false});
  queue.finish();
  queue.take_device_seconds();  // the uploads and the first run are not a timed call's
  scratch_.clear();
}

CallTime GraphCall::run(Queue& queue, Direction direction) {
  const GraphRun how{.backward = direction == Direction::backward, .poison = false};
  const CallTime t = time_call(queue, [&] { run_graph_on_buffers(c_, backend_, queue, leaves_, scratch_, how); });
  scratch_.clear();  // the queue has finished: freed outside the timed call
  return t;
}

TrainingStepCall::TrainingStepCall(const Composite& c, Backend& backend, Queue& queue,
                                   const std::vector<HostTensor>& leaves)
    : training_(c, backend, queue, leaves, /*poison=*/false) {
  training_.step(++steps_);
  queue.finish();
  queue.take_device_seconds();
  training_.release_spent();
}

CallTime TrainingStepCall::run(Queue& queue, Direction) {
  const CallTime t = time_call(queue, [&] { training_.step(++steps_); });
  training_.release_spent();
  return t;
}

}  // namespace gp
