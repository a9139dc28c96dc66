# Shared by the architecture tests that prove a check catches what it guards against: run the
# check (a cmake -P script) on the intact tree and on a broken copy; it must pass the first and
# fail the second with a message matching PATTERN.
#   gp_expect_caught(SCRIPT s INTACT <-D args...> BROKEN <-D args...> PATTERN regex WHAT text)
function(gp_expect_caught)
  cmake_parse_arguments(arg "" "SCRIPT;PATTERN;WHAT" "INTACT;BROKEN" ${ARGN})
  execute_process(COMMAND ${CMAKE_COMMAND} ${arg_INTACT} -P ${arg_SCRIPT} RESULT_VARIABLE intact ERROR_VARIABLE err
                  OUTPUT_QUIET)
  if(NOT intact EQUAL 0)
    message(FATAL_ERROR "the check fails on the intact tree: ${err}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} ${arg_BROKEN} -P ${arg_SCRIPT} RESULT_VARIABLE broken ERROR_VARIABLE err
                  OUTPUT_QUIET)
  string(REGEX REPLACE "[ \t\n]+" " " err "${err}")  # CMake wraps long messages
  if(broken EQUAL 0 OR NOT err MATCHES "${arg_PATTERN}")
    message(FATAL_ERROR "the check missed ${arg_WHAT}: exit ${broken}, ${err}")
  endif()
  message(STATUS "the check catches ${arg_WHAT}")
endfunction()
