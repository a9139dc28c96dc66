// A composite is a small graph of catalog ops declared as data: named tensors (parameters with a
// seeded initialisation, data inputs with domains) and nodes, each one catalog op reading named
// tensors and writing one. The harness runs it on a backend through the backend's own primitive
// kernels and checks it end to end, node by node and numerically (harness/graph/composite.hpp).
// Models are declared in cases/models.cpp; ids look like primitive ids:
// `mlp(layers=3,batch=64,act=gelu,dtype=f32)`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cases/case.hpp"

namespace gp {

// A leaf of the graph: a parameter or a data input. Values are drawn from `domain` (parameters
// from U[-1/sqrt(fan_in), 1/sqrt(fan_in)], PyTorch's default for linear layers).
struct LeafDecl {
  std::string name;
  Shape shape;
  Domain domain;
  bool parameter = false;  // parameters are reported as such ("grad W1")
  bool gradient = true;    // false for targets, class indices, Gumbel noise
  bool integral = false;   // i32 class indices (cross-entropy targets)
  // A one-hot data leaf [batch, radix] of a digit of an integral leaf: element (b, j) is 1 where
  // (one_hot_of[b] / divisor) % radix == j, 0 elsewhere (an embedding lookup from generic ops).
  std::string one_hot_of;
  std::int64_t divisor = 1;
};

// One node: out = op(inputs...). `layer` names where the node sits in the model ("layer 2",
// "step 3 gate r"), so a node check that fails says which layer broke.
struct NodeDecl {
  OpKind op{};
  OpAttrs attrs;
  std::vector<std::string> inputs;
  std::string output;
  std::string layer;
};

struct CompositeDecl;

// A training run (docs/training.md): `steps` optimizer steps on every parameter of the graph,
// forward, loss, backward and update on the device. The targets come from a teacher: the same
// graph with parameters of its own draw, run on the student's data by the reference.
struct TrainingDecl {
  OpKind optimizer{};
  OpAttrs attrs;  // lr, momentum, betas, eps, weight decay; the loop sets the step counter
  int steps = 0;
  std::string target;      // the leaf the teacher's output fills
  bool classes = false;    // the target holds the teacher's class (argmax of each output row)
  double convergence = 2;  // the loss must fall by this factor within the steps
  // The same model at batch / micro_batches (the same leaf names; each data leaf smaller along
  // its batch axis): the first step's gradient accumulated over that many micro-batches must
  // equal the full batch's (harness/training/training_micro_batches.cpp).
  int micro_batches = 0;
  std::shared_ptr<const CompositeDecl> micro_batch;
};

struct CompositeDecl {
  std::string model;        // "mlp", "gru", "gated"
  std::string params;       // the id's attributes: "layers=3,batch=64,act=gelu"
  std::string formulation;  // named in the report: "PyTorch / cuDNN GRU (r, z, n gates)"
  std::vector<LeafDecl> leaves;
  std::vector<NodeDecl> nodes;  // in execution order; each output is written once
  std::string output;           // the model's output (before the loss)
  std::string loss;             // a scalar node output
  std::vector<DType> dtypes = {DType::f32, DType::f64};
  std::optional<TrainingDecl> training;
};

// A declaration at one dtype: its id, each node's OpCall (shapes inferred) and every tensor's shape.
struct Composite {
  CompositeDecl decl;
  DType dtype = DType::f32;
  std::string id;
  std::vector<OpCall> calls;            // one per node
  std::map<std::string, Shape> shapes;  // leaves and node outputs
  // Ops on the path whose gradients are declared surrogates (straight-through): their names.
  std::vector<std::string> surrogates;
  const LeafDecl* leaf(const std::string& name) const;
  // The primitive-case shape of a leaf's inputs: a Case whose inputs are the leaves, used to draw
  // them with the primitives' seeded generator (harness/check/inputs.hpp).
  Case leaf_case() const;
};

// Every composite of every model, expanded over dtypes; ids unique (checked at start-up).
const std::vector<Composite>& all_composites();
const Composite* find_composite(const std::string& id);
// Model names ("gru", "gated", "mlp"), for --op.
std::vector<std::string> model_names();

// Where a GRU applies its reset gate: to the hidden matmul's result (PyTorch / cuDNN, the declared
// models) or to the state before the matmul (Cho et al. 2014; Keras reset_after=False). The
// second is not declared: tests run it on a device against the first (a library with the other
// formulation).
enum class GruReset { after_matmul, before_matmul };
CompositeDecl gru_declaration(std::int64_t seq, std::int64_t batch, std::int64_t input, std::int64_t hidden,
                              GruReset reset);

// Builds a Composite, inferring shapes node by node; throws gp::Error naming the node whose op
// rejects its inputs, or a tensor read before it is written.
Composite make_composite(const CompositeDecl& decl, DType dtype);

}  // namespace gp
