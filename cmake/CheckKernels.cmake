# An implementation against the catalog, at build time: every op of the named families
# (GP_<FAMILY>_OPS in gp_op_codes.h, generated from core/op_list.hpp) must appear in one of the
# SOURCE files as one of the PATTERNs with @NAME@ replaced by the op's name. A catalog op without
# its kernel (or its reference unit) then fails the build, naming the op, the files and what was
# expected, instead of running into a switch's default at run time.
#
# gp_check_kernels(<target> SOURCE <file>... FAMILIES <UNARY ...> PATTERN <text with @NAME@>...)
#   adds the check as a build step of <target>.
function(gp_check_kernels target)
  cmake_parse_arguments(ARG "" "" "SOURCE;FAMILIES;PATTERN" ${ARGN})
  list(GET ARG_SOURCE 0 first)
  get_filename_component(name ${first} NAME)
  string(MAKE_C_IDENTIFIER "${target}_${name}_${ARG_FAMILIES}" stamp_name)
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/kernel_checks/${stamp_name}.stamp)
  # Lists travel to the script with '|' between items: ';' would split the -D arguments.
  string(REPLACE ";" "|" sources "${ARG_SOURCE}")
  string(REPLACE ";" "|" patterns "${ARG_PATTERN}")
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DOP_CODES=${GP_OP_CODES_HEADER} "-DSOURCES=${sources}" "-DFAMILIES=${ARG_FAMILIES}"
            "-DPATTERNS=${patterns}" -DSTAMP=${stamp} -P ${PROJECT_SOURCE_DIR}/cmake/check_kernels_script.cmake
    DEPENDS ${ARG_SOURCE} ${GP_OP_CODES_HEADER} ${PROJECT_SOURCE_DIR}/cmake/check_kernels_script.cmake
    COMMENT "Checking ${name} against the op catalog"
    VERBATIM)
  add_custom_target(${stamp_name} DEPENDS ${stamp})
  add_dependencies(${stamp_name} gp_op_codes_header)
  add_dependencies(${target} ${stamp_name})
endfunction()
