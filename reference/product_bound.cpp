#include "reference/product_bound.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/tracked.hpp"

namespace gp::ref {

namespace {

template <class S>
using MatrixOf = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Array = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The host's own roundings. Every nonnegative quantity of the bound (norms, squares, their sums:
// at most 2^21 operations each) errs by at most 2^21 * 2^-53 relative: kHostSlack covers it. The
// partial sums come from a GEMM in S (double; long double for f64, whose bounds are too close to
// double's own rounding): each is a sum of the k terms so far and of at most k chunk sums, off by
// at most gamma_2k = 2k eps / (1 - 2k eps) of the sum of the terms' magnitudes, in any order.
constexpr long double kHostSlack = 1 + 0x1p-24L;
constexpr std::int64_t kMaxTerms = std::int64_t{1} << 20;
template <class S>
double host_gamma(std::int64_t terms) {
  const long double unit_roundoff = static_cast<long double>(std::numeric_limits<S>::epsilon()) / 2;
  const long double e = 2 * static_cast<long double>(terms) * unit_roundoff;
  return static_cast<double>(e / (1 - e) * kHostSlack);
}
// (a + b)^2 <= (1 + e) a^2 + (1 + 1/e) b^2: the additive parts of a rounding (b, below the normal
// range) are kept apart from the relative ones this way.
constexpr long double kSplit = 0x1p-10L;

DenseMatrix dense(const HostTensor& t, std::int64_t rows, std::int64_t cols, bool transposed) {
  DenseMatrix m{rows, cols, {}};
  const std::vector<double> v = t.to_doubles();
  if (!transposed) {
    m.v = v;
    return m;
  }
  m.v.resize(v.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      m.v[static_cast<std::size_t>(r * cols + c)] = v[static_cast<std::size_t>(c * rows + r)];
  return m;
}

// A chunk of K / 64 terms, at least 4 and at most 64: about 64 chunks, so that the work per element
// stays that of 64 steps, and short sums get short chunks (a sum of 31 terms as one chunk was
// bounded 10 times above its Tracked bound, as 8 chunks of 4 about 2 times).
std::int64_t chunk_of(std::int64_t terms) { return std::clamp<std::int64_t>((terms + 63) / 64, 4, kProductChunk); }
std::int64_t chunks(std::int64_t terms) { return (terms + chunk_of(terms) - 1) / chunk_of(terms); }

// Per chunk q of the terms and per line l of `m` (a row of x, or a column of y): ||.||_2 and
// ||.||_4^2 over the chunk, at [l * chunk_count + q] (`by_row`) or [q * lines + l].
void chunk_norms(const DenseMatrix& m, bool by_row, std::vector<double>& norm2, std::vector<double>& norm4,
                 std::int64_t first = 0, std::int64_t count = -1) {
  const std::int64_t terms = by_row ? m.cols : m.rows, all = by_row ? m.rows : m.cols;
  const std::int64_t lines = count < 0 ? all : count, q_count = chunks(terms), chunk = chunk_of(terms);
  norm2.assign(static_cast<std::size_t>(lines * q_count), 0.0);
  norm4.assign(norm2.size(), 0.0);
  for (std::int64_t l = 0; l < lines; ++l)
    for (std::int64_t q = 0; q < q_count; ++q) {
      double s2 = 0, s4 = 0;
      for (std::int64_t p = q * chunk; p < std::min(terms, (q + 1) * chunk); ++p) {
        const double v = by_row ? m(first + l, p) : m(p, first + l);
        s2 += v * v;
        s4 += v * v * v * v;
      }
      const std::size_t at = static_cast<std::size_t>(by_row ? l * q_count + q : q * lines + l);
      norm2[at] = std::sqrt(s2);
      norm4[at] = std::sqrt(s4);
    }
}

}  // namespace

std::optional<ProductForm> product_form(const OpCall& call, int tensor, const std::vector<HostTensor>& inputs,
                                        const HostTensor& cotangent) {
  if (call.kind != OpKind::matmul && call.kind != OpKind::linear) return std::nullopt;
  const MatmulDims d = matmul_dims(call);
  if (d.batch != 1) return std::nullopt;
  ProductForm f;
  const HostTensor& a = inputs.at(0);
  const HostTensor& b = inputs.at(1);
  if (call.kind == OpKind::matmul) {
    // C = A B;  dA = dC B^T;  dB = A^T dC
    if (tensor == kOutputTensor)
      f = {dense(a, d.m, d.k, false), dense(b, d.k, d.n, false), {}, true};
    else if (tensor == 0)
      f = {dense(cotangent, d.m, d.n, false), dense(b, d.n, d.k, true), {}, true};
    else if (tensor == 1)
      f = {dense(a, d.k, d.m, true), dense(cotangent, d.m, d.n, false), {}, true};
    else
      return std::nullopt;
    return f;
  }
  // Y = X W^T + b;  dX = dY W;  dW = dY^T X;  db = the column sums of dY
  if (tensor == kOutputTensor) {
    f = {dense(a, d.m, d.k, false), dense(b, d.k, d.n, true), inputs.at(2).to_doubles(), true};
  } else if (tensor == 0) {
    f = {dense(cotangent, d.m, d.n, false), dense(b, d.n, d.k, false), {}, true};
  } else if (tensor == 1) {
    f = {dense(cotangent, d.n, d.m, true), dense(a, d.m, d.k, false), {}, true};
  } else if (tensor == 2) {
    f = {DenseMatrix{1, d.m, std::vector<double>(static_cast<std::size_t>(d.m), 1.0)},
         dense(cotangent, d.m, d.n, false),
         {},
         false};
  } else {
    return std::nullopt;
  }
  return f;
}

std::string product_form_refusal(const ProductForm& f) {
  if (f.x.cols < 1) return "an empty sum";
  if (f.x.cols + 1 > kMaxTerms) return "more than 2^20 terms per element";
  // Fourth powers must stay in double's normal range: |v| in [2^-250, 2^250] or zero.
  auto outside = [](double v) { return v != 0 && !(std::fabs(v) >= 0x1p-250 && std::fabs(v) <= 0x1p250); };
  for (const std::vector<double>* v : {&f.x.v, &f.y.v, &f.bias})
    if (std::any_of(v->begin(), v->end(), outside))
      return "an operand outside [2^-250, 2^250] in magnitude, where double cannot hold its fourth power";
  return "";
}

ProductBounds::ProductBounds(const ProductForm& form, DType dtype) : form_(form) {
  // Any profile gives the dtype's context; none is read.
  const TrackingContext context = context_for(dtype, &correctly_rounded_profile(), true);
  const RoundingUnit unit = rounding_unit_of(context);
  digits_ = context.digits;
  u_ = unit.u;
  floor_ = unit.floor;
  phi_ = unit.floor + unit.min_normal;  // a flushing device may lose a result below normal whole
  chunk_norms(form.y, false, y_norm2_, y_norm4_);
}

RefTensor ProductBounds::rows(std::int64_t first, std::int64_t count) const {
  return digits_ > 24 ? rows_in<long double>(first, count) : rows_in<double>(first, count);
}

template <class S>
RefTensor ProductBounds::rows_in(std::int64_t first, std::int64_t count) const {
  const std::int64_t k = form_.x.cols, n = form_.y.cols, q_count = chunks(k), chunk = chunk_of(k);
  const bool bias = !form_.bias.empty();
  const std::int64_t terms = k + (bias ? 1 : 0);
  const double gamma = host_gamma<S>(terms);
  std::vector<double> x_norm2, x_norm4;
  chunk_norms(form_.x, true, x_norm2, x_norm4, first, count);
  const MatrixOf<S> x = Eigen::Map<const MatrixOf<double>>(form_.x.v.data() + first * k, count, k).template cast<S>();
  const Eigen::Map<const MatrixOf<double>> y(form_.y.v.data(), k, n);
  Eigen::Map<const Array> xn2(x_norm2.data(), count, q_count), xn4(x_norm4.data(), count, q_count);
  Eigen::Map<const Array> yn2(y_norm2_.data(), q_count, n), yn4(y_norm4_.data(), q_count, n);

  // The partial sums at every chunk start, and per element: over each chunk's terms, the largest
  // partial sum they can reach, squared (seq), the largest partial sum (largest), and the sum of
  // the terms' magnitudes so far, bounded (abs).
  MatrixOf<S> sum = MatrixOf<S>::Zero(count, n);
  Array seq = Array::Zero(count, n), largest = Array::Zero(count, n), abs = Array::Zero(count, n);
  for (std::int64_t q = 0; q < q_count; ++q) {
    const std::int64_t p0 = q * chunk, width = std::min(chunk, k - p0);
    const Array within = (xn2.col(q).matrix() * yn2.row(q).matrix()).array();
    const Array reach = sum.template cast<double>().array().abs() + gamma * abs + within;
    seq += static_cast<double>(width) * reach.square();
    largest = largest.max(reach);
    abs += within;
    sum.noalias() += x.middleCols(p0, width) * y.middleRows(p0, width).template cast<S>();
  }
  Eigen::Map<const Eigen::Array<double, 1, Eigen::Dynamic>> b(form_.bias.data(), 1, bias ? n : 0);
  if (bias) {  // the bias is the last term: added, not a product
    const Array reach = sum.template cast<double>().array().abs() + gamma * abs + b.abs().replicate(count, 1);
    seq += reach.square();
    largest = largest.max(reach);
    abs += b.abs().replicate(count, 1);
    sum.array() += b.template cast<S>().replicate(count, 1);
  }
  // sum_k S_k <= sum over chunks q of (the terms from chunk q on) * (chunk q's sum of t^2), and
  // the sum of t^2 over a chunk <= ||x||_4^2 ||y||_4^2 there.
  Eigen::Array<double, 1, Eigen::Dynamic> weights(q_count);
  for (std::int64_t q = 0; q < q_count; ++q) weights(q) = static_cast<double>(k - q * chunk);
  const Array squares = (xn4.matrix() * yn4.matrix()).array();
  Array walk = ((xn4.rowwise() * weights).matrix() * yn4.matrix()).array();
  if (bias) walk += squares + b.square().replicate(count, 1);

  RefTensor out;
  out.shape = Shape{count, n};
  out.v.resize(static_cast<std::size_t>(count * n));
  out.err.resize(out.v.size());
  const long double u2 = u_ * u_ * (1 + kSplit), phi2 = phi_ * phi_ * (1 + 1 / kSplit);
  const long double depth = terms > 1 ? std::ceil(std::log2(static_cast<long double>(terms))) : 0;
  for (std::int64_t i = 0; i < count; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t at = static_cast<std::size_t>(i * n + j);
      out.v[at] = static_cast<long double>(sum(i, j));
      ErrorBound& e = out.err[at];
      e.spec = static_cast<long double>(gamma) * abs(i, j);
      e.det = e.spec;
      e.acc = std::numeric_limits<long double>::infinity();
      if (terms == 1) {  // one term: its product's rounding, a single rounding (Sum<Tracked>::result)
        if (form_.products) e.det += (u_ * std::fabs(out.v[at]) + phi_) * kHostSlack;
        continue;
      }
      const long double seq_bound = u2 * seq(i, j) + terms * phi2, walk_bound = u2 * walk(i, j) + terms * phi2;
      const long double half_ulp = u_ * largest(i, j) + floor_;
      const long double rounded_products = form_.products ? u2 * squares(i, j) + k * phi2 : 0;
      e.prob =
          std::sqrt(std::max({seq_bound, walk_bound, depth * half_ulp * half_ulp}) + rounded_products) * kHostSlack;
    }
  return out;
}

}  // namespace gp::ref
