# Code whose speed is not what a run measures: the report writers, the command line and the test
# programs' own sources (the checks they call live in the libraries). GP_COLD_CODE_OPT gives
# them their own optimisation flags; the ci preset sets -O1, which compiles them in about three
# quarters of -O2's time (CI builds everything from nothing on 2 cores). Empty: the build type's.
set(GP_COLD_CODE_OPT "" CACHE STRING "Optimisation flags for reports, the CLI and test sources ('' = the build type's)")

function(gp_cold_code)
  if(GP_COLD_CODE_OPT)
    foreach(target IN LISTS ARGN)
      target_compile_options(${target} PRIVATE ${GP_COLD_CODE_OPT})
    endforeach()
  endif()
endfunction()

# The test programs' own sources: assertions around calls into the libraries, whose code keeps its
# flags. The ci preset sets -O0 (a quarter less compile time than -O1 for these sources, measured
# on test_reports.cpp and test_cases.cpp); empty: GP_COLD_CODE_OPT's.
set(GP_TEST_CODE_OPT "" CACHE STRING "Optimisation flags for the test programs' own sources ('' = GP_COLD_CODE_OPT)")

function(gp_test_code)
  gp_cold_code(${ARGN})
  if(GP_TEST_CODE_OPT)
    foreach(target IN LISTS ARGN)
      target_compile_options(${target} PRIVATE ${GP_TEST_CODE_OPT})
    endforeach()
  endif()
endfunction()
