// Tensor-train embeddings (../docs/models.md): a 512-word vocabulary (8 x 8 x 8) embedded in 64
// dimensions (4 x 4 x 4) by three cores of rank r, then a linear layer to 10 classes and
// cross-entropy. Two forms of the same embedding: the catalog's `tt_embedding`, whose kernels
// contract the core slices an id selects, and generic primitives (one-hot digits times cores,
// contracted by batched matmuls), which a device runs through its matmul kernels.
#include "cases/graph_builder.hpp"

namespace gp {

namespace {

constexpr std::int64_t kV[3] = {8, 8, 8}, kD[3] = {4, 4, 4}, kClasses = 10;

// The embedding of `ids` by cores G1 [v1, 1, d1, r], G2 [v2, r, d2, r], G3 [v3, r, d3, 1] as
// generic primitives: row b is G1[i1] (d1 x r) . G2[i2] (r x d2 r) . G3[i3] (r x d3), each slice
// picked by a one-hot row times the core.
std::string generic_embedding(GraphBuilder& g, const std::string& ids, const std::string cores[3], std::int64_t rank,
                              std::int64_t batch) {
  const std::int64_t ranks[4] = {1, rank, rank, 1};
  std::string slices[3];
  std::int64_t divisor = kV[1] * kV[2];
  for (int k = 0; k < 3; ++k) {
    const std::string hot = g.one_hot("onehot" + std::to_string(k + 1), ids, batch, kV[k], divisor);
    divisor /= k < 2 ? kV[k + 1] : 1;
    OpAttrs as_matrix;
    as_matrix.shape = {kV[k], ranks[k] * kD[k] * ranks[k + 1]};
    OpAttrs per_row;
    per_row.shape = {batch, k == 0 ? kD[0] : ranks[k], k == 0 ? ranks[1] : kD[k] * ranks[k + 1]};
    slices[k] = g.node(
        OpKind::reshape,
        {g.node(OpKind::matmul, {hot, g.node(OpKind::reshape, {cores[k]}, "embedding", as_matrix)}, "embedding")},
        "embedding", per_row);
  }
  OpAttrs pairs;  // [batch, d1, d2 r] -> [batch, d1 d2, r]
  pairs.shape = {batch, kD[0] * kD[1], rank};
  const std::string left =
      g.node(OpKind::reshape, {g.node(OpKind::matmul, {slices[0], slices[1]}, "embedding")}, "embedding", pairs);
  OpAttrs rows;
  rows.shape = {batch, kD[0] * kD[1] * kD[2]};
  return g.node(OpKind::reshape, {g.node(OpKind::matmul, {left, slices[2]}, "embedding")}, "embedding", rows);
}

CompositeDecl tt(std::int64_t rank, std::int64_t batch, std::int64_t vocabulary_used, bool generic) {
  CompositeDecl d;
  d.model = "tt";
  d.params = "rank=" + std::to_string(rank) + ",batch=" + std::to_string(batch) +
             (vocabulary_used < kV[0] * kV[1] * kV[2] ? ",ids=" + std::to_string(vocabulary_used) : "") +
             ",form=" + (generic ? "generic" : "kernel");
  d.formulation = std::string("tensor-train embedding 8x8x8 -> 4x4x4, ") +
                  (generic ? "as one-hot matmuls and batched matmuls" : "the tt_embedding kernel") +
                  ", linear to 10 classes, mean cross-entropy";
  GraphBuilder g(d);
  const std::string ids = g.data("ids", Shape{batch}, Domain::classes_of(static_cast<int>(vocabulary_used)));
  const std::string targets = g.data("targets", Shape{batch}, Domain::classes_of(kClasses));
  const std::int64_t ranks[4] = {1, rank, rank, 1};
  std::string cores[3];
  for (int k = 0; k < 3; ++k)
    cores[k] = g.parameter("G" + std::to_string(k + 1), Shape{kV[k], ranks[k], kD[k], ranks[k + 1]},
                           double(std::max<std::int64_t>(ranks[k], 1) * 3));
  const std::string e = generic ? generic_embedding(g, ids, cores, rank, batch)
                                : g.node(OpKind::tt_embedding, {ids, cores[0], cores[1], cores[2]}, "embedding");
  d.output = g.linear(e, kD[0] * kD[1] * kD[2], kClasses, "", "classifier");
  d.loss = g.node(OpKind::cross_entropy, {d.output, targets}, "loss");
  return d;
}

}  // namespace

void declare_tt_models(std::vector<CompositeDecl>& out) {
  for (bool generic : {false, true}) {
    for (std::int64_t rank : {4, 8, 16}) out.push_back(tt(rank, 64, 512, generic));
    // Ids from the first 16 words: every id repeats about four times in a batch of 64, and
    // each slice of the first core is picked by every row.
    out.push_back(tt(16, 64, 16, generic));
  }
}

}  // namespace gp
