// Layout ops move values without arithmetic, so a correct kernel is exact (with Tracked: no
// rounding, a zero bound). Every op is written as an index map out[i] = in[src(i)]; its
// VJP scatters dout back through the same map (each input element is read at most once).
//   transpose  swaps the last two axes (rank 2 or 3)
//   reshape    identity on the flat order
//   concat     along axis: [outer, n_0 + n_1 + ..., inner]
//   slice      along axis: elements start, start + step, ... < stop
#include "reference/internal.hpp"

namespace gp::ref::detail {

namespace {

// Where output element `i` comes from: which input and which flat index in it.
struct Source {
  std::size_t input;
  std::int64_t index;
};

template <typename Fn>
void for_each_source(const OpCall& call, Fn fn) {
  const Shape& out = call.output_shape;
  switch (call.kind) {
    case OpKind::transpose: {
      const Shape& s = call.input_shapes[0];
      std::int64_t rows = s[s.rank() - 2], cols = s[s.rank() - 1], batch = s.rank() == 3 ? s[0] : 1;
      // out[b, c, r] = in[b, r, c]
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t c = 0; c < cols; ++c)
          for (std::int64_t r = 0; r < rows; ++r) fn((b * cols + c) * rows + r, Source{0, (b * rows + r) * cols + c});
      return;
    }
    case OpKind::reshape:
      for (std::int64_t i = 0; i < out.numel(); ++i) fn(i, Source{0, i});
      return;
    case OpKind::concat: {
      AxisSplit so = split_at_axis(out, call.attrs.axis);
      std::int64_t offset = 0;
      for (std::size_t k = 0; k < call.input_shapes.size(); ++k) {
        AxisSplit sk = split_at_axis(call.input_shapes[k], call.attrs.axis);
        for (std::int64_t o = 0; o < sk.outer; ++o)
          for (std::int64_t j = 0; j < sk.n; ++j)
            for (std::int64_t i = 0; i < sk.inner; ++i)
              fn(row_index(so, o, i, offset + j), Source{k, row_index(sk, o, i, j)});
        offset += sk.n;
      }
      if (offset != so.n) fail(call, "concat sizes disagree with the output shape");
      return;
    }
    case OpKind::slice: {
      AxisSplit si = split_at_axis(call.input_shapes[0], call.attrs.axis);
      AxisSplit so = split_at_axis(out, call.attrs.axis);
      for (std::int64_t o = 0; o < so.outer; ++o)
        for (std::int64_t j = 0; j < so.n; ++j)
          for (std::int64_t i = 0; i < so.inner; ++i)
            fn(row_index(so, o, i, j), Source{0, row_index(si, o, i, call.attrs.start + j * call.attrs.step)});
      return;
    }
    default:
      fail(call, "is not a layout op");
  }
}

}  // namespace

template <class R>
BasicRefTensor<R> layout_forward(const OpCall& call, const std::vector<BasicRefTensor<R>>& in) {
  BasicRefTensor<R> out = zeros<R>(call.output_shape);
  for_each_source(call, [&](std::int64_t i, Source s) { out.v[at(i)] = in[s.input].v[at(s.index)]; });
  return out;
}

template <class R>
std::vector<BasicRefTensor<R>> layout_vjp(const OpCall& call, const std::vector<BasicRefTensor<R>>& in,
                                          const BasicRefTensor<R>& dout) {
  std::vector<BasicRefTensor<R>> grads;
  for (const auto& t : in) grads.push_back(zeros<R>(t.shape));
  for_each_source(call, [&](std::int64_t i, Source s) { grads[s.input].v[at(s.index)] += dout.v[at(i)]; });
  return grads;
}

GP_REF_INSTANTIATE(layout)
}  // namespace gp::ref::detail
