// Builds a composite's declaration leaf by leaf and node by node (cases/models.cpp,
// cases/tt_models.cpp). Internal to cases/.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "cases/composite.hpp"

namespace gp {

// Appends leaves and nodes to a declaration; node outputs get fresh names unless given one.
class GraphBuilder {
 public:
  explicit GraphBuilder(CompositeDecl& d) : d_(d) {}

  // A weight or bias of a layer with `fan_in` inputs: U[-1/sqrt(fan_in), 1/sqrt(fan_in)].
  std::string parameter(const std::string& name, Shape shape, double fan_in) {
    const double a = 1 / std::sqrt(fan_in);
    Domain d = Domain::range(-a, a);
    d.fd_length = a;  // finite-difference steps at the parameter's own scale
    d_.leaves.push_back({name, std::move(shape), d, true, true, false, {}, 1});
    return name;
  }
  std::string data(const std::string& name, Shape shape, Domain domain, bool gradient = true) {
    const bool integral = domain.kind == Domain::Kind::class_index;
    d_.leaves.push_back({name, std::move(shape), domain, false, gradient && !integral, integral, {}, 1});
    return name;
  }
  // One-hot rows of digit (ids / divisor) % radix of the integral leaf `ids` [batch].
  std::string one_hot(const std::string& name, const std::string& ids, std::int64_t batch, std::int64_t radix,
                      std::int64_t divisor) {
    d_.leaves.push_back({name, Shape{batch, radix}, Domain::range(0, 1), false, false, false, ids, divisor});
    return name;
  }
  std::string node(OpKind op, std::vector<std::string> inputs, const std::string& layer, OpAttrs attrs = {},
                   std::string output = {}) {
    if (output.empty()) output = "t" + std::to_string(d_.nodes.size());
    d_.nodes.push_back({op, std::move(attrs), std::move(inputs), output, layer});
    return output;
  }
  // y = x W^T + b with parameters W<suffix> [out, in] and b<suffix> [out].
  std::string linear(const std::string& x, std::int64_t in, std::int64_t out, const std::string& suffix,
                     const std::string& layer) {
    const std::string w = parameter("W" + suffix, Shape{out, in}, double(in));
    const std::string b = parameter("b" + suffix, Shape{out}, double(in));
    return node(OpKind::linear, {x, w, b}, layer);
  }

 private:
  CompositeDecl& d_;
};

// The models' builders (cases/models.cpp), also trained by cases/training.cpp.
CompositeDecl mlp_model(int layers, std::int64_t batch, OpKind act);
CompositeDecl gru_model(std::int64_t seq, std::int64_t batch, std::int64_t input, std::int64_t hidden,
                        GruReset reset = GruReset::after_matmul);
CompositeDecl gru_fused_model(std::int64_t seq, std::int64_t batch, std::int64_t input, std::int64_t hidden);
CompositeDecl gated_model(OpKind gate_op, std::int64_t batch);
CompositeDecl kan_model(const std::vector<std::int64_t>& widths, int order, std::int64_t batch);

}  // namespace gp
