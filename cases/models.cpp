// The composite models (../docs/models.md): graphs of catalog ops. Each builder writes the graph
// once; the declarations below pick its sizes.
#include <cmath>
#include <map>
#include <string>

#include "cases/composite.hpp"
#include "cases/graph_builder.hpp"

namespace gp {

// `layers` linear layers (hidden width 64) with `act` between them, cross-entropy over 10 classes.
CompositeDecl mlp_model(int layers, std::int64_t batch, OpKind act) {
  constexpr std::int64_t kIn = 32, kHidden = 64, kClasses = 10;
  CompositeDecl d;
  d.model = "mlp";
  d.params = "layers=" + std::to_string(layers) + ",batch=" + std::to_string(batch) +
             (layers > 1 ? ",act=" + std::string(op_name(act)) : "");
  d.formulation = "linear layers (x W^T + b), " + (layers > 1 ? std::string(op_name(act)) + " between them, " : "") +
                  "mean cross-entropy over 10 classes";
  GraphBuilder g(d);
  std::string h = g.data("x", Shape{batch, kIn}, Domain::range(-2, 2));
  const std::string targets = g.data("targets", Shape{batch}, Domain::classes_of(kClasses));
  std::int64_t width = kIn;
  for (int l = 1; l <= layers; ++l) {
    const std::string layer = "layer " + std::to_string(l);
    const std::int64_t out = l == layers ? kClasses : kHidden;
    h = g.linear(h, width, out, std::to_string(l), layer);
    if (l < layers) h = g.node(act, {h}, layer);
    width = out;
  }
  d.output = h;
  d.loss = g.node(OpKind::cross_entropy, {h, targets}, "loss");
  return d;
}

// PyTorch's GRU (torch.nn.GRU, one layer, cuDNN's formulation):
//   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
//   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
//   h' = (1 - z) * n + z * h, computed as n + z * (h - n) like PyTorch's kernels
// weight_ih_l0 = [W_ir; W_iz; W_in] and weight_hh_l0 = [W_hr; W_hz; W_hn] are separate parameters
// here; the loss is the mean squared error of the last state against a target.
namespace {

// A GRU model's declaration without its cells: the id's sizes, and the leaves the two forms share
// (the sequence x [seq, batch, input], the initial state h0 and the target of the last state).
struct GruFrame {
  std::string xs, h0, target;
};
GruFrame gru_frame(CompositeDecl& d, GraphBuilder& g, std::int64_t seq, std::int64_t batch, std::int64_t input,
                   std::int64_t hidden) {
  d.model = "gru";
  d.params = "seq=" + std::to_string(seq) + ",batch=" + std::to_string(batch) + ",input=" + std::to_string(input) +
             ",hidden=" + std::to_string(hidden);
  return {g.data("x", Shape{seq, batch, input}, Domain::range(-1, 1)),
          g.data("h0", Shape{batch, hidden}, Domain::range(-1, 1)),
          g.data("target", Shape{batch, hidden}, Domain::range(-1, 1), false)};
}

// Step t of the sequence as a [batch, input] tensor.
std::string gru_step_input(GraphBuilder& g, const std::string& xs, std::int64_t t, std::int64_t batch,
                           std::int64_t input, const std::string& step) {
  OpAttrs pick;
  pick.axis = 0;
  pick.start = t;
  pick.stop = t + 1;
  OpAttrs flat;
  flat.shape = {batch, input};
  return g.node(OpKind::reshape, {g.node(OpKind::slice, {xs}, step, pick)}, step, flat);
}

}  // namespace

CompositeDecl gru_model(std::int64_t seq, std::int64_t batch, std::int64_t input, std::int64_t hidden, GruReset reset) {
  const bool after = reset == GruReset::after_matmul;
  CompositeDecl d;
  GraphBuilder g(d);
  const GruFrame frame = gru_frame(d, g, seq, batch, input, hidden);
  d.formulation =
      std::string(after ? "PyTorch / cuDNN GRU: r, z, n gates, n = tanh(W_in x + b_in + r * (W_hn h + b_hn))"
                        : "Cho et al. GRU: r, z, n gates, n = tanh(W_in x + b_in + W_hn (r * h) + b_hn)") +
      ", h' = n + z * (h - n); mean squared error of the last state";
  std::string h = frame.h0;
  const double fan = double(hidden);
  std::map<std::string, std::pair<std::string, std::string>> w;  // gate -> (W, b) names
  for (const char* gate : {"ir", "iz", "in"})
    w[gate] = {g.parameter(std::string("W_") + gate, Shape{hidden, input}, fan),
               g.parameter(std::string("b_") + gate, Shape{hidden}, fan)};
  for (const char* gate : {"hr", "hz", "hn"})
    w[gate] = {g.parameter(std::string("W_") + gate, Shape{hidden, hidden}, fan),
               g.parameter(std::string("b_") + gate, Shape{hidden}, fan)};
  for (std::int64_t t = 0; t < seq; ++t) {
    const std::string step = "step " + std::to_string(t);
    const std::string x = gru_step_input(g, frame.xs, t, batch, input, step);
    auto lin = [&](const std::string& in, const char* gate) {
      return g.node(OpKind::linear, {in, w[gate].first, w[gate].second}, step + " " + gate);
    };
    const std::string r =
        g.node(OpKind::sigmoid, {g.node(OpKind::add, {lin(x, "ir"), lin(h, "hr")}, step + " r")}, step + " r");
    const std::string z =
        g.node(OpKind::sigmoid, {g.node(OpKind::add, {lin(x, "iz"), lin(h, "hz")}, step + " z")}, step + " z");
    const std::string rn = after ? g.node(OpKind::mul, {r, lin(h, "hn")}, step + " n")
                                 : lin(g.node(OpKind::mul, {r, h}, step + " n"), "hn");
    const std::string n = g.node(OpKind::tanh, {g.node(OpKind::add, {lin(x, "in"), rn}, step + " n")}, step + " n");
    const std::string zd = g.node(OpKind::mul, {z, g.node(OpKind::sub, {h, n}, step + " h'")}, step + " h'");
    h = g.node(OpKind::add, {n, zd}, step + " h'");
  }
  d.output = h;
  d.loss = g.node(OpKind::mse_loss, {h, frame.target}, "loss");
  return d;
}

// The same GRU with every time step one gru_cell node, as a library's fused cell computes it:
// the parameters stacked r, z, n as PyTorch's weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0.
// A cell whose gates are wrong inside (the reset gate before the hidden matmul) fails the node
// check of its step, which the composed form cannot name.
CompositeDecl gru_fused_model(std::int64_t seq, std::int64_t batch, std::int64_t input, std::int64_t hidden) {
  CompositeDecl d;
  GraphBuilder g(d);
  const GruFrame frame = gru_frame(d, g, seq, batch, input, hidden);
  d.params += ",cell=fused";
  d.formulation =
      "PyTorch / cuDNN GRU, each step one gru_cell node: r, z, n gates, n = tanh(W_in x + b_in + r * (W_hn h + "
      "b_hn)), h' = (1 - z) * n + z * h; mean squared error of the last state";
  const double fan = double(hidden);
  const std::int64_t rows = kGruGates * hidden;
  const std::string w_ih = g.parameter("W_ih", Shape{rows, input}, fan),
                    w_hh = g.parameter("W_hh", Shape{rows, hidden}, fan);
  const std::string b_ih = g.parameter("b_ih", Shape{rows}, fan), b_hh = g.parameter("b_hh", Shape{rows}, fan);
  std::string h = frame.h0;
  for (std::int64_t t = 0; t < seq; ++t) {
    const std::string step = "step " + std::to_string(t);
    h = g.node(OpKind::gru_cell, {gru_step_input(g, frame.xs, t, batch, input, step), h, w_ih, w_hh, b_ih, b_hh}, step);
  }
  d.output = h;
  d.loss = g.node(OpKind::mse_loss, {h, frame.target}, "loss");
  return d;
}

// A gate through `gate_op` multiplying a value path: y = gate(x W_g^T + b_g) * (x W_v^T + b_v),
// mean squared error against a target. gumbel_softmax draws its noise as a data input.
CompositeDecl gated_model(OpKind gate_op, std::int64_t batch) {
  constexpr std::int64_t kIn = 16, kWidth = 16;
  CompositeDecl d;
  d.model = "gated";
  d.params = "gate=" + std::string(op_name(gate_op)) + ",batch=" + std::to_string(batch);
  d.formulation = std::string(op_name(gate_op)) + "(x W_g^T + b_g) * (x W_v^T + b_v), mean squared error";
  GraphBuilder g(d);
  const std::string x = g.data("x", Shape{batch, kIn}, Domain::range(-2, 2));
  const std::string target = g.data("target", Shape{batch, kWidth}, Domain::range(-1, 1), false);
  std::string gate = g.linear(x, kIn, kWidth, "_g", "gate");
  if (gate_op == OpKind::gumbel_softmax) {
    const std::string noise =
        g.data("noise", Shape{batch, kWidth}, Domain::of(Domain::Kind::gumbel_noise, 0, 1), false);
    gate = g.node(gate_op, {gate, noise}, "gate");
  } else {
    gate = g.node(gate_op, {gate}, "gate");
  }
  d.output = g.node(OpKind::mul, {gate, g.linear(x, kIn, kWidth, "_v", "value")}, "output");
  d.loss = g.node(OpKind::mse_loss, {d.output, target}, "loss");
  return d;
}

// A KAN (Kolmogorov-Arnold network) of layers widths[0] -> widths[1] -> ..., each layer
//   y_j = b_j + sum_i (W_ji silu(x_i) + sum_m C_(i,m),j B_m(x_i)),
// B_m the B-spline bases of degree `order` on `grid` intervals over [-1, 1] (bspline_basis), as
// the KAN GPU suite computes it: a base path (linear of silu, which carries the bias) plus a
// spline path (the bases of every input flattened, times the coefficients). Mean squared error.
CompositeDecl kan_model(const std::vector<std::int64_t>& widths, int order, std::int64_t batch) {
  constexpr int kGrid = 5;
  CompositeDecl d;
  d.model = "kan";
  std::string w;
  for (auto x : widths) w += (w.empty() ? "" : "x") + std::to_string(x);
  d.params = "widths=" + w + ",order=" + std::to_string(order) + ",grid=" + std::to_string(kGrid) +
             ",batch=" + std::to_string(batch);
  d.formulation = "KAN layers y = b + W silu(x) + C . B(x), B the degree-" + std::to_string(order) +
                  " B-spline bases on " + std::to_string(kGrid) + " intervals over [-1, 1]; mean squared error";
  GraphBuilder g(d);
  // Inputs away from the knots of the first layer, as bspline_basis's own cases keep them.
  const double h = 2.0 / kGrid;
  Domain in = Domain::range(-1, 1);
  in.margin = 0.02 * h;
  for (int j = 0; j <= kGrid + 2 * order; ++j) in.kinks.push_back(-1 + (j - order) * h);
  std::string x = g.data("x", Shape{batch, widths.front()}, in);
  const std::string target = g.data("target", Shape{batch, widths.back()}, Domain::range(-1, 1), false);
  OpAttrs spline;
  spline.order = order;
  spline.grid = kGrid;
  for (std::size_t l = 1; l < widths.size(); ++l) {
    const std::string layer = "layer " + std::to_string(l), n = std::to_string(l);
    const std::int64_t fan_in = widths[l - 1], out = widths[l], bases = kGrid + order;
    const std::string base = g.linear(g.node(OpKind::silu, {x}, layer), fan_in, out, n, layer);
    OpAttrs flat;
    flat.shape = {batch, fan_in * bases};
    const std::string b = g.node(OpKind::reshape, {g.node(OpKind::bspline_basis, {x}, layer, spline)}, layer, flat);
    const std::string c = g.parameter("C" + n, Shape{fan_in * bases, out}, double(fan_in * bases));
    x = g.node(OpKind::add, {base, g.node(OpKind::matmul, {b, c}, layer)}, layer);
  }
  d.output = x;
  d.loss = g.node(OpKind::mse_loss, {x, target}, "loss");
  return d;
}

CompositeDecl gru_declaration(std::int64_t seq, std::int64_t batch, std::int64_t input, std::int64_t hidden,
                              GruReset reset) {
  return gru_model(seq, batch, input, hidden, reset);
}

void declare_models(std::vector<CompositeDecl>& out) {
  for (std::int64_t batch : {1, 7, 16, 64, 128}) {
    // One layer: the input gradient comes straight from the only linear layer (the KAN incident
    // of a zero input gradient in single-layer networks).
    out.push_back(mlp_model(1, batch, OpKind::gelu));
    for (OpKind act : {OpKind::gelu, OpKind::tanh}) out.push_back(mlp_model(3, batch, act));
  }
  out.push_back(gru_model(10, 8, 16, 32));
  out.push_back(gru_fused_model(10, 8, 16, 32));
  // The KAN GPU suite's cases: single-layer nets at every batch (the zero input gradient of
  // single-layer nets), two layers at every order, a wide layer.
  for (std::int64_t batch : {1, 7, 16, 64, 128}) out.push_back(kan_model({8, 4}, 3, batch));
  for (int order : {2, 3, 4, 5}) out.push_back(kan_model({8, 16, 4}, order, 16));
  out.push_back(kan_model({32, 256}, 3, 64));
  for (OpKind gate : {OpKind::sigmoid, OpKind::ste_hardtanh_gate, OpKind::gumbel_softmax})
    out.push_back(gated_model(gate, 8));
}

}  // namespace gp
