// gru_cell (core/README.md): one GRU step, PyTorch / cuDNN gates. The gates of every unit are
// computed once per call (six dot products, bias first), then the output or the gate gradients;
// the input and weight gradients are loops over those, each element one running sum, so every
// gradient is overwritten and the same every run. Sigmoids in the stable form (1 - z is
// sigmoid(-a_z)), tanh' as 4e / (1 + e)^2 with e = exp(-2|p|) (not 1 - n^2, which cancels).
#include <cmath>

#include "backends/cpu/kernels/kernel_args.hpp"
#include "backends/cpu/kernels/stable_math.hpp"

namespace gp::cpu {

namespace {

template <typename T>
struct Unit {
  T a_r, a_z, gh_n, p_n, r, r_minus, z, z_minus, n;
};

// b + W v over row `row` of a weight [rows, len] and row b of v [batch, len].
template <typename T>
T affine(const T* w, const T* bias, const T* v, std::int64_t row, std::int64_t b, std::int64_t len) {
  T acc = bias[row];
  for (std::int64_t k = 0; k < len; ++k) acc += w[row * len + k] * v[b * len + k];
  return acc;
}

template <typename T>
std::vector<Unit<T>> units(const GruGeometry& g, const std::vector<const T*>& x) {
  std::vector<Unit<T>> out;
  out.reserve(static_cast<std::size_t>(g.batch * g.hidden));
  for (std::int64_t b = 0; b < g.batch; ++b) {
    for (std::int64_t j = 0; j < g.hidden; ++j) {
      auto gi = [&](int gate) { return affine(x[2], x[4], x[0], g.row(gate, j), b, g.input); };
      auto gh = [&](int gate) { return affine(x[3], x[5], x[1], g.row(gate, j), b, g.hidden); };
      Unit<T> u;
      u.a_r = gi(kGruR) + gh(kGruR);
      u.a_z = gi(kGruZ) + gh(kGruZ);
      u.gh_n = gh(kGruN);
      u.r = sigmoid(u.a_r);
      u.r_minus = sigmoid(-u.a_r);
      u.z = sigmoid(u.a_z);
      u.z_minus = sigmoid(-u.a_z);
      u.p_n = gi(kGruN) + u.r * u.gh_n;
      u.n = std::tanh(u.p_n);
      out.push_back(u);
    }
  }
  return out;
}

template <typename T>
T sech2(T p) {
  const T e = std::exp(T(-2) * std::abs(p));
  return T(4) * e / ((T(1) + e) * (T(1) + e));
}

}  // namespace

template <typename T>
void gru_cell_forward(const ForwardArgs<T>& a) {
  const GruGeometry g = gru_geometry(a.call);
  const std::vector<Unit<T>> u = units(g, a.x);
  for (std::size_t e = 0; e < u.size(); ++e) a.y[e] = u[e].z_minus * u[e].n + u[e].z * a.x[1][e];
}

template <typename T>
void gru_cell_backward(const BackwardArgs<T>& a) {
  const GruGeometry g = gru_geometry(a.call);
  const std::int64_t B = g.batch, I = g.input, H = g.hidden, rows = kGruGates * H;
  const std::vector<Unit<T>> u = units(g, a.x);
  // Gate gradients [batch, 3 hidden] at the rows of the input (gi) and hidden (gh) weights.
  std::vector<T> gi(static_cast<std::size_t>(B * rows)), gh(gi.size());
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t j = 0; j < H; ++j) {
      const Unit<T>& v = u[static_cast<std::size_t>(b * H + j)];
      const T g_out = a.dy[b * H + j];
      const T da_n = (g_out * v.z_minus) * sech2(v.p_n);
      const T da_z = (g_out * (a.x[1][b * H + j] - v.n)) * (v.z * v.z_minus);
      const T da_r = (da_n * v.gh_n) * (v.r * v.r_minus);
      T* gi_b = &gi[static_cast<std::size_t>(b * rows)];
      T* gh_b = &gh[static_cast<std::size_t>(b * rows)];
      gi_b[g.row(kGruR, j)] = gh_b[g.row(kGruR, j)] = da_r;
      gi_b[g.row(kGruZ, j)] = gh_b[g.row(kGruZ, j)] = da_z;
      gi_b[g.row(kGruN, j)] = da_n;
      gh_b[g.row(kGruN, j)] = da_n * v.r;
    }
  }
  // d v [batch, len] = gates [batch, rows] W [rows, len] (+ g z for the state).
  auto input_gradient = [&](T* dv, const std::vector<T>& gates, const T* w, std::int64_t len, bool state) {
    if (!dv) return;
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t k = 0; k < len; ++k) {
        T acc = state ? a.dy[b * H + k] * u[static_cast<std::size_t>(b * H + k)].z : T(0);
        for (std::int64_t row = 0; row < rows; ++row)
          acc += w[row * len + k] * gates[static_cast<std::size_t>(b * rows + row)];
        dv[b * len + k] = acc;
      }
    }
  };
  // dW [rows, len] = gates^T v, db [rows] = column sums of gates, each summed in batch order.
  auto weight_gradients = [&](T* dw, T* db, const std::vector<T>& gates, const T* v, std::int64_t len) {
    for (std::int64_t row = 0; row < rows; ++row) {
      for (std::int64_t k = 0; dw && k < len; ++k) {
        T acc = 0;
        for (std::int64_t b = 0; b < B; ++b) acc += gates[static_cast<std::size_t>(b * rows + row)] * v[b * len + k];
        dw[row * len + k] = acc;
      }
      if (!db) continue;
      T acc = 0;
      for (std::int64_t b = 0; b < B; ++b) acc += gates[static_cast<std::size_t>(b * rows + row)];
      db[row] = acc;
    }
  };
  input_gradient(a.dx[0], gi, a.x[2], I, false);
  input_gradient(a.dx[1], gh, a.x[3], H, true);
  weight_gradients(a.dx[2], a.dx[4], gi, a.x[0], I);
  weight_gradients(a.dx[3], a.dx[5], gh, a.x[1], H);
}

GP_CPU_INSTANTIATE(gru_cell_forward, gru_cell_backward)

}  // namespace gp::cpu
