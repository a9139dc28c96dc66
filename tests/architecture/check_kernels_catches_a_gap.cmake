# cmake -DROOT=<source dir> -DOP_CODES=<gp_op_codes.h> -DWORK=<dir> -P check_kernels_catches_a_gap.cmake
# The build-time kernel check (cmake/CheckKernels.cmake) must fail, naming the op, on a shader
# that lost one op's case and on a reference whose table lost one op's own unit, and pass on the
# files as they are.
include(${CMAKE_CURRENT_LIST_DIR}/expect_caught.cmake)

# remove_text(<file> <text> <copy>): <copy> is <file> without <text>, which must be there.
function(remove_text file text copy)
  file(READ ${file} intact)
  string(REPLACE "${text}" "" broken "${intact}")
  if(broken STREQUAL intact)
    message(FATAL_ERROR "${file} has no '${text}' to remove")
  endif()
  file(WRITE ${copy} "${broken}")
endfunction()

set(script ${ROOT}/cmake/check_kernels_script.cmake)
set(shader ${ROOT}/backends/vulkan/shaders/unary.comp)
remove_text(${shader} "case GP_OP_exp:" ${WORK}/unary_without_exp.comp)
set(common -DOP_CODES=${OP_CODES} -DFAMILIES=UNARY "-DPATTERNS=case GP_OP_@NAME@:" -DSTAMP=${WORK}/stamp)
gp_expect_caught(SCRIPT ${script} INTACT ${common} -DSOURCES=${shader}
                 BROKEN ${common} -DSOURCES=${WORK}/unary_without_exp.comp
                 PATTERN "no implementation of catalog ops: exp" WHAT "unary.comp without exp's case")

# The reference's row-wise ops: the softmax unit's switch or an own unit in dispatch.cpp's table.
set(ref ${ROOT}/reference)
remove_text(${ref}/dispatch.cpp "{OpKind::rms_norm, GP_REF_UNIT(layer_norm)}," ${WORK}/dispatch_without_rms_norm.cpp)
set(common -DOP_CODES=${OP_CODES} -DFAMILIES=ROWWISE "-DPATTERNS=case OpKind::@NAME@:|{OpKind::@NAME@,"
           -DSTAMP=${WORK}/stamp)
gp_expect_caught(SCRIPT ${script} INTACT ${common} "-DSOURCES=${ref}/rowwise.cpp|${ref}/dispatch.cpp"
                 BROKEN ${common} "-DSOURCES=${ref}/rowwise.cpp|${WORK}/dispatch_without_rms_norm.cpp"
                 PATTERN "no implementation of catalog ops: rms_norm" WHAT "the reference table without rms_norm")
