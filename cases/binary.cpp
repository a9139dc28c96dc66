// Binary elementwise ops: same-shape cases at every elementwise shape, and the broadcast
// patterns of docs/ops.md ([B,N] o [N] is a bias add: its gradient is a batch sum).
#include <algorithm>

#include "cases/registry.hpp"

namespace gp {

namespace {

struct BinaryDecl {
  OpKind op;
  Domain x, y;
  bool scalar_broadcast = true;  // maximum/minimum cannot keep a scalar apart from 528 values
  double fd_max_step = 0;
};

std::vector<std::pair<Shape, Shape>> broadcast_pairs(bool with_scalar) {
  std::vector<std::pair<Shape, Shape>> p = {
      {Shape{16, 33}, Shape{33}}, {Shape{64, 128}, Shape{128}}, {Shape{16, 1}, Shape{1, 33}}};
  if (with_scalar) p.push_back({Shape{}, Shape{16, 33}});
  return p;
}

}  // namespace

void declare_binary_cases(CaseList& list) {
  const Domain plain = Domain::range(-5, 5);
  const Domain apart = Domain::of(Domain::Kind::apart_from_input0, -5, 5, 0.05);
  const std::vector<BinaryDecl> decls = {
      {OpKind::add, plain, plain},
      {OpKind::sub, plain, plain},
      {OpKind::mul, plain, plain},
      {OpKind::div, plain, Domain::away_from_zero(-4, 4, 0.25)},
      {OpKind::pow, Domain::range(0.1, 10), Domain::range(-2, 3)},
      {OpKind::maximum, plain, apart, false, 0.02},
      {OpKind::minimum, plain, apart, false, 0.02},
  };
  for (const auto& b : decls) {
    std::vector<std::pair<Shape, Shape>> shapes;
    // One element of maximum/minimum gives one input an all-zero gradient: nothing to compare.
    for (const Shape& s : elementwise_shapes())
      if (b.scalar_broadcast || s.numel() > 1) shapes.push_back({s, s});
    for (auto& p : broadcast_pairs(b.scalar_broadcast)) shapes.push_back(p);
    for (const auto& [sx, sy] : shapes) {
      CaseDecl c;
      c.op = b.op;
      c.inputs = {{sx, b.x}, {sy, b.y}};
      c.dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16};
      c.fd_max_step = b.fd_max_step;
      list.add(std::move(c));
    }
    // The size ML libraries' performance reports time elementwise ops at (bench's library-report
    // preset, docs/bench.md).
    if (b.op == OpKind::add || b.op == OpKind::mul) {
      CaseDecl c;
      c.op = b.op;
      c.inputs = {{Shape{100, 100}, b.x}, {Shape{100, 100}, b.y}};
      c.dtypes = {DType::f32};
      list.add(std::move(c));
    }
  }
  // The large tier: two inputs of 10^8 elements (grids past 65,535 work groups in one dimension),
  // broadcast inputs whose gradients sum long lines (a transformer's bias add, a column sum of
  // 2,048 rows; a per-feature scale over 2^20 rows; a per-row divisor over rows of 65,536), and an
  // index case past 2^31 elements.
  struct LargeBinary {
    OpKind op;
    Shape x, y;
    std::vector<DType> dtypes;
  };
  const std::vector<LargeBinary> large = {
      {OpKind::add, Shape{100'000'000}, Shape{100'000'000}, {DType::f32}},
      {OpKind::mul, Shape{100'000'000}, Shape{100'000'000}, {DType::f32}},
      {OpKind::add, Shape{2048, 4096}, Shape{4096}, {DType::f32, DType::f16}},
      {OpKind::mul, Shape{1 << 20, 8}, Shape{8}, {DType::f32}},
      {OpKind::div, Shape{64, 65536}, Shape{64, 1}, {DType::f32}},
      // two inputs of 2^31 + 4,097 elements: an index kept in 32 bits wraps (as exp's in unary.cpp)
      {OpKind::add, Shape{(std::int64_t{1} << 31) + 4097}, Shape{(std::int64_t{1} << 31) + 4097}, {DType::bf16}},
  };
  for (const LargeBinary& l : large) {
    const auto decl = std::find_if(decls.begin(), decls.end(), [&](const BinaryDecl& b) { return b.op == l.op; });
    CaseDecl c;
    c.op = l.op;
    c.tier = Tier::large;
    c.inputs = {{l.x, decl->x}, {l.y, decl->y}};
    c.dtypes = l.dtypes;
    list.add(std::move(c));
  }
}

}  // namespace gp
