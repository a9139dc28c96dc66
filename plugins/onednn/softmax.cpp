// softmax and log_softmax on the catalog's axis: oneDNN's softmax and logsoftmax primitives,
// forward and backward (the backward reads the forward's output, which the host passes as `out`).
#include "onednn_ops.hpp"

namespace gp_onednn {
namespace softmax_impl {
namespace {

bool is_log(const gp_op_call& c) { return op_is(c, "log_softmax"); }

template <class Forward, class Backward>
struct Primitives {
  static typename Forward::primitive_desc forward_pd(const dnnl::engine& engine, const gp_op_call& c) {
    const typename Forward::desc d(dnnl::prop_kind::forward_training, plain_desc(c.output, c.dtype), axis_of(c));
    return {d, engine};
  }
  static typename Backward::primitive_desc backward_pd(const dnnl::engine& engine, const gp_op_call& c) {
    const dnnl::memory::desc md = plain_desc(c.output, c.dtype);
    const typename Backward::desc d(md, md, axis_of(c));
    return {d, engine, forward_pd(engine, c)};
  }
  static void forward(const Exec& e, void* out) {
    const auto pd = forward_pd(e.engine, e.call);
    Forward(pd).execute(
        e.stream, {{DNNL_ARG_SRC, wrap(e, pd.src_desc(), e.inputs[0])}, {DNNL_ARG_DST, wrap(e, pd.dst_desc(), out)}});
  }
  static void vjp(const Exec& e, const void* out, const void* dout, void* const* grads) {
    const auto pd = backward_pd(e.engine, e.call);
    Backward(pd).execute(e.stream, {{DNNL_ARG_DST, wrap(e, pd.dst_desc(), out)},
                                    {DNNL_ARG_DIFF_DST, wrap(e, pd.diff_dst_desc(), dout)},
                                    {DNNL_ARG_DIFF_SRC, wrap(e, pd.diff_src_desc(), grads[0])}});
  }
};
using Softmax = Primitives<dnnl::softmax_forward, dnnl::softmax_backward>;
using LogSoftmax = Primitives<dnnl::logsoftmax_forward, dnnl::logsoftmax_backward>;

bool has(const char* op) { return std::string_view(op) == "softmax" || std::string_view(op) == "log_softmax"; }

std::optional<std::string> cannot_run(const dnnl::engine& engine, const gp_op_call& c) {
  return creation_failure(
      [&] { is_log(c) ? (void)LogSoftmax::backward_pd(engine, c) : (void)Softmax::backward_pd(engine, c); });
}

void forward(const Exec& e, void* out) { is_log(e.call) ? LogSoftmax::forward(e, out) : Softmax::forward(e, out); }

void vjp(const Exec& e, const void* out, const void* dout, void* const* grads) {
  is_log(e.call) ? LogSoftmax::vjp(e, out, dout, grads) : Softmax::vjp(e, out, dout, grads);
}

}  // namespace
}  // namespace softmax_impl

const Family softmax_family{softmax_impl::has, softmax_impl::cannot_run, softmax_impl::forward, softmax_impl::vjp};

}  // namespace gp_onednn
