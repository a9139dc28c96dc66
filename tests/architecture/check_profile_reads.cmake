# cmake -DROOT=<source dir> -P check_profile_reads.cmake
# A Tracked evaluation reads its device's math profile in one place, the budget of a library
# function in reference/tracked.cpp, which counts the read (ref::ProfileReads); the reference
# cache stores an evaluation that counted none once for every device (cached_bounds). A budget
# asked for anywhere else, or a profile read elsewhere in reference/, would go uncounted and let
# one device's bounds serve another's: this fails naming each such line. Allowed: tracked.cpp
# (the counted read, and the context that holds the profile) and bspline_basis.cpp's test for
# no profile at all, which every device profile passes alike.
if(NOT ROOT)
  message(FATAL_ERROR "check_profile_reads.cmake needs -DROOT=<source dir>")
endif()
set(offences "")
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/reference/*.cpp ${ROOT}/reference/*.hpp ${ROOT}/harness/*.cpp
     ${ROOT}/harness/*.hpp ${ROOT}/cases/*.cpp ${ROOT}/cases/*.hpp)
foreach(rel IN LISTS sources)
  if(rel STREQUAL "reference/tracked.cpp")
    continue()
  endif()
  set(pattern "(->|\\.)budget\\(")
  if(rel MATCHES "^reference/")
    set(pattern "${pattern}|profile->|\\.profile([^_A-Za-z0-9]|$)")
  endif()
  file(STRINGS ${ROOT}/${rel} lines REGEX "${pattern}")
  foreach(line IN LISTS lines)
    if(rel STREQUAL "reference/bspline_basis.cpp" AND line MATCHES "if \\(!tracking_context\\(\\)\\.profile\\)")
      continue()
    endif()
    string(STRIP "${line}" line)
    list(APPEND offences "${rel}: ${line}")
  endforeach()
endforeach()
if(offences)
  list(JOIN offences "\n  " text)
  message(FATAL_ERROR "a device profile read outside reference/tracked.cpp's counted budget (call "
                      "ref::note_profile_read() there, or read it through a library function):\n  ${text}")
endif()
message(STATUS "profile reads: only reference/tracked.cpp's counted budget")
