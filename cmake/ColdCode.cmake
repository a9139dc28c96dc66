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
