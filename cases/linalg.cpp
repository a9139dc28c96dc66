// matmul (2-D and batched, inner sizes 1, 7, 33, 128), linear, tt_embedding, log_matmul_exp at
// the same inner sizes (its large-magnitude and dominated rows are hard regimes,
// cases/hard_regimes.cpp), and gru_cell.
#include <cmath>

#include "cases/registry.hpp"

namespace gp {

namespace {

// tt_embedding over a vocabulary 8 x 8 x 8 and dimension 4 x 4 x 4 at ranks 4, 8, 16: ids from
// the whole vocabulary at batch 1, 7 and 64 (64 rows over 8 slices per core: slices repeat), and
// a batch of 64 drawn from 6 ids (every 85th: (0,0,0), (1,2,5), (2,5,2), (3,7,7), (5,2,4),
// (6,5,1) in mixed radix), so that whole ids repeat for sure and slices of G2 are shared by
// different ids.
void add_tt_embedding_cases(CaseList& list) {
  const Domain core = Domain::range(-1, 1);
  for (std::int64_t r : {4, 8, 16}) {
    auto add = [&](std::int64_t batch, const Domain& ids, const char* variant) {
      CaseDecl c;
      c.op = OpKind::tt_embedding;
      c.inputs = {{Shape{batch}, ids}, {Shape{8, 1, 4, r}, core}, {Shape{8, r, 4, r}, core}, {Shape{8, r, 4, 1}, core}};
      c.dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16};
      c.variant = variant;
      list.add(std::move(c));
    };
    for (std::int64_t batch : {1, 7, 64}) add(batch, Domain::classes_of(512), "");
    add(64, Domain::class_pool(6, 85), "repeats");
  }
}

// gru_cell at the GRU model's sizes (batch 8, input 16, hidden 32) with PyTorch's initialisation,
// weights and biases U[-1/sqrt(hidden), 1/sqrt(hidden)], and at small odd sizes with weights
// U[-1, 1], whose pre-activations reach further into the gates' saturation. Data in [-1, 1].
void add_gru_cell_cases(CaseList& list) {
  struct Sizes {
    std::int64_t batch, input, hidden;
    double weight;
  };
  const Domain data = Domain::range(-1, 1);
  for (const Sizes& s : {Sizes{8, 16, 32, 1 / std::sqrt(32.0)}, Sizes{3, 5, 7, 1}}) {
    Domain weight = Domain::range(-s.weight, s.weight);
    weight.fd_length = s.weight;
    const std::int64_t rows = kGruGates * s.hidden;
    CaseDecl c;
    c.op = OpKind::gru_cell;
    c.inputs = {{Shape{s.batch, s.input}, data}, {Shape{s.batch, s.hidden}, data},
                {Shape{rows, s.input}, weight},  {Shape{rows, s.hidden}, weight},
                {Shape{rows}, weight},           {Shape{rows}, weight}};
    list.add(std::move(c));
  }
}

// The large tier (docs/scale.md): the sizes where GEMM kernels tile, split K and leave partial
// edge tiles, compared on a sample of elements. The libraries' own benchmark sizes (1000^3, a
// 784 -> 128 linear layer at batch 100) in every storage type; in f32, 4096^3, every dimension
// one off a power of two (4095 rows, 4097 inner, 4111 = 4096 + 15 columns), an inner size of
// 65,536, and inner sizes of 4097 and 4111 (a partial tile of 1 and of 15 past 4096) at small
// outer sizes, which a cpu host checks in seconds.
void add_large_linalg_cases(CaseList& list) {
  auto add = [&](OpKind op, std::vector<Shape> shapes, std::vector<DType> dtypes) {
    CaseDecl c;
    c.op = op;
    c.tier = Tier::large;
    c.dtypes = std::move(dtypes);
    for (auto& s : shapes) c.inputs.push_back({std::move(s), Domain::range(-2, 2)});
    list.add(std::move(c));
  };
  const std::vector<DType> every = {DType::f32, DType::f64, DType::f16, DType::bf16};
  add(OpKind::matmul, {Shape{1000, 1000}, Shape{1000, 1000}}, every);
  add(OpKind::linear, {Shape{100, 784}, Shape{128, 784}, Shape{128}}, every);
  add(OpKind::matmul, {Shape{4096, 4096}, Shape{4096, 4096}}, {DType::f32});
  add(OpKind::matmul, {Shape{4095, 4097}, Shape{4097, 4111}}, {DType::f32});
  add(OpKind::matmul, {Shape{64, 65536}, Shape{65536, 64}}, {DType::f32});
  add(OpKind::matmul, {Shape{33, 4097}, Shape{4097, 31}}, {DType::f32, DType::f16});
  add(OpKind::matmul, {Shape{33, 4111}, Shape{4111, 31}}, {DType::f32});
}

}  // namespace

void declare_linalg_cases(CaseList& list) {
  // matmul and linear in every storage type: 16-bit inputs are exact in f32, products accumulate
  // in f32, and the result is rounded once to the storage type.
  auto add = [&](OpKind op, std::vector<Shape> shapes, Domain d = Domain::range(-2, 2),
                 std::vector<DType> dtypes = {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    CaseDecl c;
    c.op = op;
    c.dtypes = std::move(dtypes);
    for (auto& s : shapes) c.inputs.push_back({std::move(s), d});
    list.add(std::move(c));
  };
  for (std::int64_t k : {1, 7, 33, 128}) add(OpKind::matmul, {Shape{16, k}, Shape{k, 9}});
  add(OpKind::matmul, {Shape{1, 7}, Shape{7, 1}});
  add(OpKind::matmul, {Shape{64, 128}, Shape{128, 33}});
  add(OpKind::matmul, {Shape{4, 16, 7}, Shape{4, 7, 9}});
  add(OpKind::matmul, {Shape{3, 8, 128}, Shape{3, 128, 5}});
  add(OpKind::matmul, {Shape{2, 1, 33}, Shape{2, 33, 1}});
  // The size ML libraries' performance reports time a small matmul at (bench's library-report
  // preset, docs/bench.md).
  add(OpKind::matmul, {Shape{100, 100}, Shape{100, 100}}, Domain::range(-2, 2), {DType::f32});

  for (std::int64_t batch : {1, 7, 16, 64, 128}) add(OpKind::linear, {Shape{batch, 33}, Shape{9, 33}, Shape{9}});
  add(OpKind::linear, {Shape{16, 128}, Shape{7, 128}, Shape{7}});
  add(OpKind::linear, {Shape{7, 1}, Shape{5, 1}, Shape{5}});
  add_tt_embedding_cases(list);

  // Terms t = A + B spread over [-8, 8]: rows mix a few large terms with many small ones.
  struct Output {
    std::int64_t m, n;
  };
  for (std::int64_t k : {1, 7, 33, 128})
    for (Output o : {Output{1, 1}, Output{7, 5}, Output{16, 33}})
      add(OpKind::log_matmul_exp, {Shape{o.m, k}, Shape{k, o.n}}, Domain::range(-4, 4));
  add_gru_cell_cases(list);
  add_large_linalg_cases(list);
}

}  // namespace gp
