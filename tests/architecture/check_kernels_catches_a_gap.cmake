# cmake -DROOT=<source dir> -DOP_CODES=<gp_op_codes.h> -DWORK=<dir> -P check_kernels_catches_a_gap.cmake
# The build-time kernel check (cmake/CheckKernels.cmake) must fail, naming the op, on a shader
# that lost one op's case, and pass on the shader as it is.
file(READ ${ROOT}/backends/vulkan/shaders/unary.comp text)
string(REPLACE "case GP_OP_exp:" "case 9999u:" broken "${text}")
if(broken STREQUAL text)
  message(FATAL_ERROR "unary.comp has no 'case GP_OP_exp:' to remove")
endif()
file(WRITE ${WORK}/unary_without_exp.comp "${broken}")
foreach(variant IN ITEMS ${ROOT}/backends/vulkan/shaders/unary.comp ${WORK}/unary_without_exp.comp)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DOP_CODES=${OP_CODES} -DSOURCE=${variant} -DFAMILIES=UNARY "-DPATTERN=case GP_OP_@NAME@:"
            -DSTAMP=${WORK}/stamp -P ${ROOT}/cmake/check_kernels_script.cmake
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  list(APPEND results "${rc}")
  string(REGEX REPLACE "[ \t\n]+" " " last_error "${err}")  # CMake wraps long messages
endforeach()
list(GET results 0 intact)
list(GET results 1 gap)
if(NOT intact EQUAL 0)
  message(FATAL_ERROR "the check fails on the intact shader")
endif()
if(gap EQUAL 0 OR NOT last_error MATCHES "no kernel for catalog ops: exp")
  message(FATAL_ERROR "the check missed the removed case: exit ${gap}, ${last_error}")
endif()
message(STATUS "the kernel check names exp when unary.comp loses its case")
