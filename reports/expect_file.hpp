// The file of expected failures that `gradparity run --expect FILE` reads and `--write-expect
// FILE` writes (docs/ci.md): JSON, written to be edited by hand.
//   {"gradparity_expectations": 1,
//    "expect": [{"backend": "plugin:*/libgp_onednn.so:0",            device id, a glob
//                "check": "exp(shape=100x100,dtype=f32) forward",   case id and check, a glob
//                "verdict": "FAIL",                                  FAIL or ERROR
//                "max_margin": 4.1,                                  optional: a FAIL's ceiling
//                "reason": "exceeds bound",                          optional: a part of the reason
//                "note": "oneDNN's exp approximation"}]}             optional: for the reader
#pragma once

#include <string>
#include <vector>

#include "results/expectations.hpp"

namespace gp {

// Throws UsageError naming the file and the bad field (a run with a wrong file must not start).
std::vector<Expectation> read_expect_file(const std::string& path);
// Written whole or not at all (a temporary file renamed over it).
void write_expect_file(const std::string& path, const std::vector<Expectation>& expectations);

}  // namespace gp
