# cmake -DROOT=<source dir> -P check_profile_reads.cmake
# A Tracked evaluation reads its device's math profile in reference/tracked.cpp only: the budget
# of a library function and the declared backward formulation (ref::backward_reads_output), each
# read counted (ref::ProfileReads); the reference cache stores an evaluation that counted none
# once for every device (cached_bounds). A budget or a formulation asked for anywhere else, or a
# profile read elsewhere in reference/, would go uncounted and let one device's bounds serve
# another's: this fails naming each such line. Allowed: tracked.cpp (the counted reads, and the
# context that holds the profile), bspline_basis.cpp's test for no profile at all, which every
# device profile passes alike, and tolerance.cpp's note of the declared formulation for reports.
# Its flush mode likewise: only tracked.cpp and rounding_of (tracked.hpp) read it, each read of a
# value where it matters counted (ref::FlushReads), so that bounds shared by both modes are the
# ones that met none.
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
  set(pattern "(->|\\.)(budget|backward_reads_output)\\(")
  if(rel MATCHES "^reference/")
    set(pattern "${pattern}|profile->|\\.profile([^_A-Za-z0-9]|$)")
    # The flush mode likewise (ref::FlushReads): read in tracked.cpp and in rounding_of only.
    if(NOT rel STREQUAL "reference/tracked.hpp")
      set(pattern "${pattern}|\\.flush([^_A-Za-z0-9]|$)")
    endif()
  endif()
  file(STRINGS ${ROOT}/${rel} lines REGEX "${pattern}")
  foreach(line IN LISTS lines)
    if(rel STREQUAL "reference/bspline_basis.cpp" AND line MATCHES "if \\(!tracking_context\\(\\)\\.profile\\)")
      continue()
    endif()
    # The tolerance's note for the report of which formulation the device declares; it decides no bound.
    if(rel STREQUAL "harness/check/tolerance.cpp" AND line MATCHES "t\\.backward_from_output = profile\\.backward_reads_output")
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
