// An OpCall as the plugin ABI's gp_op_call: the catalog op's name, the tensors and every
// attribute both as the C struct and as "key=value" text. The C struct points into this object,
// which must outlive the plugin call.
#pragma once

#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "gradparity/plugin.h"

namespace gp::plugin {

gp_dtype to_c(DType t);
gp_tensor_desc describe(DType t, const Shape& s);

class CCall {
 public:
  explicit CCall(const OpCall& call);
  CCall(const CCall&) = delete;
  CCall& operator=(const CCall&) = delete;
  const gp_op_call* get() const { return &call_; }

 private:
  std::string op_, attrs_text_, case_id_;
  std::vector<gp_tensor_desc> inputs_;
  std::vector<gp_tensor_layout> layouts_;
  gp_op_call call_{};
};

}  // namespace gp::plugin
