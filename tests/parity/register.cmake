# Run by ctest (TEST_INCLUDE_FILES): the entries of `gp_parity_tests --gp-list-ctest`: one per
# device and op for the primitive cases (DEVICE/OP, `--gp-op=OP`), one per device and subject for
# models and training runs (DEVICE/ID, `--gp-case=ID`, an exact id), and the models' reference
# entries (reference/ID). Each is labelled with the backend, the op family, the op and "parity", so
# `ctest -L cpu`, `ctest -L unary` and `ctest -R exp` select what they say. Entries never select
# through --gtest_filter: gtest reads '-' and ':' in a filter as operators, and `axis=-1` or
# `eps=1e-05` then selected no test at all. An entry is skipped when every test in it skipped
# (the program prints the line below); one skipped case among passing ones leaves it passed.
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
  list(GET f 1 label)
  list(GET f 2 selector)
  list(GET f 3 family)
  list(GET f 4 op)
  string(REGEX REPLACE ":.*" "" backend "${device}")
  add_test("${device}/${label}" "${GP_PARITY_EXE}" "--gp-backend=${device}" "${selector}")
  set_tests_properties("${device}/${label}" PROPERTIES
    LABELS "parity;${backend};${family};${op}"
    SKIP_REGULAR_EXPRESSION "every selected test skipped"
    TIMEOUT 300)
endforeach()
