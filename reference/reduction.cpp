// Reductions over one axis: sum, mean, max, logsumexp, variance. The input is viewed as
// [outer, n, inner] (core split_at_axis); output element (o, i) sits at o * inner + i whether or
// not keepdim is set.
//   sum        Sum of the row                   gradient: dy copied
//   mean       sum / n                          gradient: dy / n
//   max        selection                        gradient: to the first maximum
//   logsumexp  m + log1p(rest) (SoftmaxRow)     gradient dy p_j, or dy exp(x_j - y) from the stored y
//   variance   two-pass: sum (x - mean)^2 / (n - c) (centered_squares)
//              gradient 2 dy (x_j - mean) / (n - c)
#include <algorithm>
#include <cmath>
#include <functional>

#include "core/parallel_blocks.hpp"
#include "reference/element_slice.hpp"
#include "reference/internal.hpp"
#include "reference/streamed_line.hpp"

namespace gp::ref::detail {

namespace {

AxisSplit checked_split(const OpCall& call) {
  AxisSplit s = split_at_axis(call.input_shapes[0], call.attrs.axis);
  if (s.outer * s.inner != call.output_shape.numel()) fail(call, "reduced size disagrees with the output shape");
  return s;
}

template <class R>
R divisor(const OpCall& call, std::int64_t n) {
  std::int64_t d = n - call.attrs.correction;
  if (d <= 0)
    fail(call, "variance over " + std::to_string(n) + " elements with correction " +
                   std::to_string(call.attrs.correction) + " divides by " + std::to_string(d));
  return real<R>(d);
}

// One line of n elements, read through x(j): the whole evaluation's rows and the large tier's
// streamed lines (bounded_streamed_line) run these same operations in the same order. Nothing
// but logsumexp keeps a copy of the line.
template <class R, class X>
class ReductionLine {
 public:
  // `known`: the line's statistics computed before (statistics()), read instead of a pass over it.
  ReductionLine(const OpCall& call, std::int64_t n, const X& x, const StreamedLineStatistics* known = nullptr)
      : call_(call), n_(n), x_(x), known_(known) {}

  // What value() and with_gradient() read of the whole line, each computed as they compute it.
  StreamedLineStatistics statistics() const requires kTracked<R> {
    StreamedLineStatistics s;
    switch (call_.kind) {
      case OpKind::max:
        s.first_maximum = first_maximum();
        break;
      case OpKind::variance:
        s.sum = sum();
        s.centered_squares = centered_square_sum(n_, x_, s.sum / real<R>(n_));
        break;
      case OpKind::sum:
      case OpKind::mean:
        s.sum = sum();
        break;
      default:
        fail(call_, "has no streamed line statistics");
    }
    return s;
  }

  R value() const {
    switch (call_.kind) {
      case OpKind::sum:
        return sum();
      case OpKind::mean:
        return sum() / real<R>(n_);
      case OpKind::max:
        return x_(first_maximum());
      case OpKind::logsumexp: {
        const SoftmaxRow<R> r = softmax_row(row());
        return r.max + r.log_sum;
      }
      case OpKind::variance:
        if constexpr (kTracked<R>)
          if (known_) return known_->centered_squares / divisor<R>(call_, n_);
        return centered_square_sum(n_, x_, sum() / real<R>(n_)) / divisor<R>(call_, n_);
      default:
        fail(call_, "is not a reduction");
    }
  }

  // put(j, gradient at element j) for each j of `elements`, or of the whole line when null.
  template <class Put>
  void gradient(const R& dy, const std::vector<std::int64_t>* elements, const Put& put) const {
    with_gradient(dy, [&](const auto& element_gradient) {
      if (elements) {
        for (std::int64_t j : *elements) put(j, element_gradient(j));
      } else {
        for (std::int64_t j = 0; j < n_; ++j) put(j, element_gradient(j));
      }
    });
  }

  // each(g) with g(j) the gradient at element j, the line's statistics computed once before; g
  // reads the line and those statistics only, so other threads may call it too.
  template <class Each>
  void with_gradient(const R& dy, const Each& each) const {
    using std::exp;
    switch (call_.kind) {
      case OpKind::sum:
        return each([&](std::int64_t) { return dy; });
      case OpKind::mean: {
        const R g = dy / real<R>(n_);
        return each([&](std::int64_t) { return g; });
      }
      case OpKind::max: {
        // Unique maximum by the domain; on a tie the first one receives the gradient.
        const std::int64_t arg = first_maximum();
        return each([&](std::int64_t j) { return j == arg ? dy : R(0); });
      }
      case OpKind::logsumexp: {
        const std::vector<R> x = row();
        const SoftmaxRow<R> r = softmax_row(x);
        return each([&](std::int64_t j) {
          R p = r.p[at(j)];
          if constexpr (kTracked<R>)
            if (backward_reads_output()) p = either_form(p, exp(x[at(j)] - stored(r.max + r.log_sum)));
          return dy * p;
        });
      }
      case OpKind::variance: {
        const R mean = sum() / real<R>(n_), div = divisor<R>(call_, n_);
        return each([&](std::int64_t j) { return 2 * dy * (x_(j) - mean) / div; });
      }
      default:
        fail(call_, "is not a reduction");
    }
  }

 private:
  R sum() const {
    if constexpr (kTracked<R>)
      if (known_) return known_->sum;
    Sum<R> s;
    for (std::int64_t j = 0; j < n_; ++j) s.add(x_(j));
    return s.result();
  }
  // The first j where x_j is largest, as std::max_element finds it.
  std::int64_t first_maximum() const {
    if constexpr (kTracked<R>)
      if (known_) return known_->first_maximum;
    std::int64_t best = 0;
    R best_value = x_(0);
    for (std::int64_t j = 1; j < n_; ++j) {
      R value = x_(j);
      if (best_value < value) {
        best = j;
        best_value = std::move(value);
      }
    }
    return best;
  }
  std::vector<R> row() const {
    std::vector<R> out;
    out.reserve(at(n_));
    for (std::int64_t j = 0; j < n_; ++j) out.push_back(x_(j));
    return out;
  }

  const OpCall& call_;
  std::int64_t n_;
  const X& x_;
  const StreamedLineStatistics* known_;
};

// Line (o, i) of a tensor viewed as [outer, n, inner], read in place.
template <class R>
auto row_reader(const std::vector<R>& v, const AxisSplit& s, std::int64_t o, std::int64_t i) {
  return [&v, &s, o, i](std::int64_t j) -> const R& { return v[at(row_index(s, o, i, j))]; };
}

}  // namespace

template <class R>
BasicRefTensor<R> reduction_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  const AxisSplit s = checked_split(call);
  BasicRefTensor<R> y = zeros<R>(call.output_shape);
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i) {
      const auto x = row_reader(in[0].v, s, o, i);
      y.v[at(o * s.inner + i)] = ReductionLine<R, decltype(x)>(call, s.n, x).value();
    }
  return y;
}

template <class R>
std::vector<BasicRefTensor<R>> reduction_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                             const BasicRefTensor<R>& dout) {
  const AxisSplit s = checked_split(call);
  BasicRefTensor<R> g = zeros<R>(in[0].shape);
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i) {
      const auto x = row_reader(in[0].v, s, o, i);
      ReductionLine<R, decltype(x)>(call, s.n, x)
          .gradient(dout.v[at(o * s.inner + i)], nullptr,
                    [&](std::int64_t j, const R& value) { g.v[at(row_index(s, o, i, j))] = value; });
    }
  return {std::move(g)};
}

GP_REF_INSTANTIATE(reduction)
}  // namespace gp::ref::detail

namespace gp::ref {

bool has_streamed_lines(const OpCall& call) {
  const OpKind op = call.kind;
  return op == OpKind::sum || op == OpKind::mean || op == OpKind::max || op == OpKind::variance;
}

namespace {

// The split of a call whose line `line` is read from the full input (and cotangent), checked.
AxisSplit streamed_split(const OpCall& call, std::int64_t line, const HostTensor& input, const HostTensor* cotangent) {
  if (!has_streamed_lines(call)) detail::fail(call, "has no streamed lines");
  const AxisSplit s = detail::checked_split(call);
  if (input.shape() != call.input_shapes[0] || (cotangent && cotangent->shape() != call.output_shape))
    detail::fail(call, "streamed line: the input or the cotangent is not the call's shape");
  if (line < 0 || line >= s.outer * s.inner) detail::fail(call, "no line " + std::to_string(line));
  return s;
}

// Element j of line `line`, as bounded_tensor widens its gathered inputs: a double is exact in
// long double.
auto line_reader(const HostTensor& input, const AxisSplit& s, std::int64_t line) {
  return [&input, s, o = line / s.inner, i = line % s.inner](std::int64_t j) {
    return read_input(static_cast<long double>(input.get(detail::row_index(s, o, i, j))));
  };
}

Tracked read_cotangent(const HostTensor& cotangent, std::int64_t line) {
  return read_input(static_cast<long double>(cotangent.get(line)));
}

}  // namespace

StreamedLineStatistics streamed_line_statistics(const OpCall& call, std::int64_t line, const HostTensor& input,
                                                const MathProfile* profile, bool flush) {
  const AxisSplit s = streamed_split(call, line, input, nullptr);
  TrackingScope scope(context_for(call.dtype, profile, flush, call.kind));
  const auto x = line_reader(input, s, line);
  return detail::ReductionLine<Tracked, decltype(x)>(call, s.n, x).statistics();
}

void visit_streamed_gradient(const OpCall& call, std::int64_t line, const HostTensor& input,
                             const HostTensor& cotangent, const StreamedLineStatistics* known,
                             const MathProfile* profile, bool flush, std::int64_t block,
                             const std::function<void(std::int64_t, const RefTensor&)>& visit) {
  const AxisSplit s = streamed_split(call, line, input, &cotangent);
  const TrackingContext context = context_for(call.dtype, profile, flush, call.kind);
  TrackingScope scope(context);
  const auto x = line_reader(input, s, line);
  const detail::ReductionLine<Tracked, decltype(x)> reduction(call, s.n, x, known);
  reduction.with_gradient(read_cotangent(cotangent, line), [&](const auto& gradient) {
    for_each_block(s.n, std::max<std::int64_t>(1, block), [&](std::int64_t, std::int64_t first, std::int64_t end) {
      TrackingScope thread_scope(context);  // the tracking context is each thread's own
      RefTensor out;
      out.shape = Shape{end - first};
      out.v.reserve(static_cast<std::size_t>(end - first));
      out.err.reserve(static_cast<std::size_t>(end - first));
      for (std::int64_t j = first; j < end; ++j) {
        const Tracked g = gradient(j);
        out.v.push_back(g.v);
        out.err.push_back(g.e);
      }
      visit(first, out);
    });
  });
}

RefTensor bounded_streamed_line(const OpCall& call, int tensor, std::int64_t line,
                                const std::vector<std::int64_t>& elements, const HostTensor& input,
                                const HostTensor& cotangent, const StreamedLineStatistics* known,
                                const MathProfile* profile, bool flush) {
  const AxisSplit s = streamed_split(call, line, input, &cotangent);
  if (tensor != kOutputTensor && tensor != 0) detail::fail(call, "no tensor " + std::to_string(tensor));
  for (std::int64_t j : elements)
    if (j < 0 || j >= (tensor == kOutputTensor ? 1 : s.n))
      detail::fail(call, "no element " + std::to_string(j) + " in line " + std::to_string(line));
  TrackingScope scope(context_for(call.dtype, profile, flush, call.kind));
  const auto x = line_reader(input, s, line);
  const detail::ReductionLine<Tracked, decltype(x)> reduction(call, s.n, x, known);
  RefTensor out;
  out.shape = Shape{static_cast<std::int64_t>(elements.size())};
  auto put = [&](std::int64_t, const Tracked& value) {
    out.v.push_back(value.v);
    out.err.push_back(value.e);
  };
  if (tensor == kOutputTensor) {
    const Tracked y = reduction.value();
    for (std::int64_t j : elements) put(j, y);
  } else {
    reduction.gradient(read_cotangent(cotangent, line), &elements, put);
  }
  return out;
}

}  // namespace gp::ref
