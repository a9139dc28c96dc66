// Routes a call to its family's kernels (one table, in the order of OpFamily).
#include <array>

#include "backends/cpu/kernels/kernel_args.hpp"

namespace gp::cpu {

namespace {

template <typename T>
struct FamilyKernels {
  void (*forward)(const ForwardArgs<T>&);
  void (*backward)(const BackwardArgs<T>&);
};

template <typename T>
constexpr std::array<FamilyKernels<T>, kFamilyCount> kFamilies = {{
    {unary_forward<T>, unary_backward<T>},
    {binary_forward<T>, binary_backward<T>},
    {reduction_forward<T>, reduction_backward<T>},
    {rowwise_forward<T>, rowwise_backward<T>},
    {linalg_forward<T>, linalg_backward<T>},
    {layout_forward<T>, layout_backward<T>},
    {loss_forward<T>, loss_backward<T>},
    {optimizer_forward<T>, optimizer_backward<T>},
}};
static_assert(static_cast<int>(OpFamily::optimizer) == kFamilyCount - 1, "kFamilies follows OpFamily");

template <typename T>
const FamilyKernels<T>& family_of(const OpCall& call) {
  return kFamilies<T>.at(static_cast<std::size_t>(op_family(call.kind)));
}

}  // namespace

template <typename T>
void dispatch_forward(const ForwardArgs<T>& a) {
  family_of<T>(a.call).forward(a);
}

template <typename T>
void dispatch_backward(const BackwardArgs<T>& a) {
  family_of<T>(a.call).backward(a);
}

GP_CPU_INSTANTIATE(dispatch_forward, dispatch_backward)

}  // namespace gp::cpu
