# Code whose speed is not what a run measures: the report writers, the command line and the test
# programs' own sources (the checks they call live in the libraries). GP_COLD_CODE_OPT gives
# them their own optimisation flags; the ci preset sets -O1, which compiles them in about three
# quarters of -O2's time (CI builds everything from nothing on 2 cores). Empty: the build type's.
set(GP_COLD_CODE_OPT "" CACHE STRING "Optimisation flags for reports, the CLI and test sources ('' = the build type's)")
# The test programs' own sources: assertions around calls into the libraries, whose code keeps its
# flags, but also the fake backends' exact kernels that some tests run over millions of elements.
# The ci preset leaves it empty (-O1): at -O0 the unit tests' ctest entries took 30 thread-seconds
# more than the 14 CPU-seconds that -O0 saved in their compile (2-core, one sitting).
set(GP_TEST_CODE_OPT "" CACHE STRING "Optimisation flags for the test programs' own sources ('' = GP_COLD_CODE_OPT)")

# Each target given: the options (a list; empty items and an empty list add nothing).
function(gp_add_private_options options)
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE ${options})
  endforeach()
endfunction()

function(gp_cold_code)
  gp_add_private_options("${GP_COLD_CODE_OPT}" ${ARGN})
endfunction()

# The later option wins: GP_TEST_CODE_OPT after GP_COLD_CODE_OPT.
function(gp_test_code)
  gp_add_private_options("${GP_COLD_CODE_OPT};${GP_TEST_CODE_OPT}" ${ARGN})
endfunction()
