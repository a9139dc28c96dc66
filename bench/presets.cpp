#include "bench/presets.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "core/error.hpp"

namespace gp {

namespace {

// The rows of ML libraries' performance reports at the catalog's f32 cases of the same sizes.
// The catalog's reductions take one axis: the sum of all 100 x 1000 elements is the sum of the
// same 100,000 elements as one axis.
BenchPreset library_report() {
  BenchPreset p;
  p.name = "library-report";
  p.creations = {{DType::f32, 1000}, {DType::f32, 1'000'000}};
  p.rows = {
      {"tensor creation, 1,000 elements", p.creations[0].id()},
      {"tensor creation, 1,000,000 elements", p.creations[1].id()},
      {"add, 100x100", "add(shape=100x100|100x100,dtype=f32)"},
      {"mul, 100x100", "mul(shape=100x100|100x100,dtype=f32)"},
      {"exp, 100x100", "exp(shape=100x100,dtype=f32)"},
      {"relu, 100x100", "relu(shape=100x100,dtype=f32)"},
      {"matmul, 100x100", "matmul(shape=100x100|100x100,dtype=f32)"},
      {"matmul, 1000x1000", "matmul(large,shape=1000x1000|1000x1000,dtype=f32)"},
      {"sum of 100x1000", "sum(axis=0,keepdim=0,shape=100000,dtype=f32)"},
      {"mean over axis 1 of 100x1000", "mean(axis=1,keepdim=0,shape=100x1000,dtype=f32)"},
      {"linear 784->128, batch 100", "linear(large,shape=100x784|128x784|128,dtype=f32)"},
      {"training step (3-layer MLP, AdamW, batch 16)", "train(model=mlp,opt=adamw,steps=20,batch=16,dtype=f32)"},
      {"3-layer MLP (tanh), batch 128", "mlp(layers=3,batch=128,act=tanh,dtype=f32)"},
      {"GRU, sequence 10, batch 8 (ops)", "gru(seq=10,batch=8,input=16,hidden=32,dtype=f32)"},
      {"GRU, sequence 10, batch 8 (fused cell)", "gru(seq=10,batch=8,input=16,hidden=32,cell=fused,dtype=f32)"},
  };
  return p;
}

}  // namespace

const std::vector<BenchPreset>& bench_presets() {
  static const std::vector<BenchPreset> presets = {library_report()};
  return presets;
}

std::vector<std::string> bench_preset_names() {
  std::vector<std::string> out;
  for (const BenchPreset& p : bench_presets()) out.emplace_back(p.name);
  return out;
}

const BenchPreset* find_bench_preset(std::string_view name) {
  const auto& all = bench_presets();
  const auto it = std::find_if(all.begin(), all.end(), [name](const BenchPreset& p) { return p.name == name; });
  return it == all.end() ? nullptr : &*it;
}

BenchItems preset_items(const BenchPreset& preset) {
  std::vector<std::string> ids;
  for (const PresetRow& row : preset.rows) ids.push_back(row.id);
  try {
    return bench_items_of(ids, preset.creations);
  } catch (const Error& e) {
    throw Error(fmt::format("bench preset {}: {}", preset.name, e.what()));
  }
}

}  // namespace gp
