# Run by ctest (TEST_INCLUDE_FILES): one ctest entry per (device, case), named DEVICE/CASE_ID and
# labelled with the backend, the op family, the op and "parity", so `ctest -L cpu`,
# `ctest -L unary` and `ctest -R exp` select what they say. An entry names its case with
# --gp-case (an exact id), never with --gtest_filter: gtest reads '-' and ':' in a filter as
# operators, and `axis=-1` or `eps=1e-05` then selected no test at all.
if(NOT EXISTS "${GP_PARITY_EXE}")
  return()
endif()
execute_process(COMMAND "${GP_PARITY_EXE}" --gp-list-ctest
                OUTPUT_VARIABLE table RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(WARNING "gp_parity_tests --gp-list-ctest failed (${rc}): ${err}")
  return()
endif()
string(REPLACE ";" "\\;" table "${table}")
string(REPLACE "\n" ";" lines "${table}")
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REPLACE "\t" ";" f "${line}")
  list(GET f 0 device)
  list(GET f 1 case_id)
  list(GET f 2 family)
  list(GET f 3 op)
  string(REGEX REPLACE ":.*" "" backend "${device}")
  add_test("${device}/${case_id}" "${GP_PARITY_EXE}" "--gp-backend=${device}" "--gp-case=${case_id}")
  set_tests_properties("${device}/${case_id}" PROPERTIES
    LABELS "parity;${backend};${family};${op}"
    SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
    TIMEOUT 300)
endforeach()
