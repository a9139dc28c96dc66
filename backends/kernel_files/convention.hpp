// The convention by which a directory of a user's kernels (`--backend opencl-src:DIR`,
// `--backend vulkan-spirv:DIR`) maps onto the catalog, shared by the backends that run such
// files through their own runtimes: the kernel names, the buffers each kernel takes in order, the
// work items it is launched over and the parameter block (params.hpp). docs/kernel-files.md is
// the user's side of it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/op.hpp"

namespace gp::kernel_files {

enum class Pass { forward, backward };
std::string_view pass_name(Pass p);

// One kernel's place in the catalog: "softmax_backward_f32" is {softmax, backward, f32}.
struct KernelName {
  OpKind op{};
  Pass pass = Pass::forward;
  DType dtype = DType::f32;
};
std::string kernel_name(const KernelName& k);
// The name parsed, or why it is not a kernel of the convention (one line naming the part that
// does not fit: an op the catalog lacks, a pass other than forward / backward, a dtype).
struct ParsedName {
  std::optional<KernelName> kernel;
  std::string error;
};
ParsedName parse_kernel_name(std::string_view name);

// Why an op has no kernel files at all (a variadic op's buffer count is not fixed); nullopt
// when it may have them.
std::optional<std::string> op_refusal(OpKind op);

// Whether an op needs a backward kernel: it has an input that receives a gradient.
bool has_backward(OpKind op);

// The buffers a kernel takes, in order, before the parameter block: the inputs ("in0", ...),
// the output ("out"), and for the backward the cotangent ("dout") and one gradient per input
// that receives one ("grad0", ... numbered by input). Names are for messages and docs.
std::vector<std::string> buffer_names(OpKind op, Pass pass);
// The kernel's argument or binding count: buffer_names plus the parameter block.
int argument_count(OpKind op, Pass pass);

// Why a directory cannot run `call` (SKIP reason), or nullopt: the op has kernel files, the
// directory `dir` has its forward (and its backward, where it has one) for the dtype, and its
// tensors fit the parameter block. `has(name)` says whether the directory has a kernel.
std::optional<std::string> refusal(const OpCall& call, const std::function<bool(const std::string&)>& has,
                                   const std::string& dir);

// A kernel's signature as a message shows it: "exp_forward_f32(in0, out, params)".
std::string signature(const KernelName& k);

}  // namespace gp::kernel_files
