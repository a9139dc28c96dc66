// Failures inside the plugin: a C++ exception carrying the call that failed and the status's name,
// turned into GP_ERROR and last_error() at the C boundary (plugin.cpp), never thrown across it.
#pragma once

#include <CL/cl.h>
#include <clblast.h>

#include <stdexcept>
#include <string>

namespace gp_clblast {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "CL_INVALID_VALUE", "CLBlast::kInvalidBatchCount", or "status N" for a code neither header names.
std::string status_name(int code);

// Throws Failure("clCreateBuffer: CL_INVALID_BUFFER_SIZE") unless the call succeeded.
void check(cl_int status, const char* call);
void check(clblast::StatusCode status, const char* call);

}  // namespace gp_clblast
