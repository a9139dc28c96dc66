# cmake -DROOT=<source dir> -DOP_CODES=<gp_op_codes.h> -DWORK=<dir> -P check_kernels_catches_a_gap.cmake
# The build-time kernel check (cmake/CheckKernels.cmake) must fail, naming the op, on a shader
# that lost one op's case, and pass on the shader as it is.
include(${CMAKE_CURRENT_LIST_DIR}/expect_caught.cmake)
file(READ ${ROOT}/backends/vulkan/shaders/unary.comp text)
string(REPLACE "case GP_OP_exp:" "case 9999u:" broken "${text}")
if(broken STREQUAL text)
  message(FATAL_ERROR "unary.comp has no 'case GP_OP_exp:' to remove")
endif()
file(WRITE ${WORK}/unary_without_exp.comp "${broken}")
set(common -DOP_CODES=${OP_CODES} -DFAMILIES=UNARY "-DPATTERN=case GP_OP_@NAME@:" -DSTAMP=${WORK}/stamp)
gp_expect_caught(SCRIPT ${ROOT}/cmake/check_kernels_script.cmake
                 INTACT ${common} -DSOURCE=${ROOT}/backends/vulkan/shaders/unary.comp
                 BROKEN ${common} -DSOURCE=${WORK}/unary_without_exp.comp
                 PATTERN "no kernel for catalog ops: exp" WHAT "unary.comp without exp's case")
