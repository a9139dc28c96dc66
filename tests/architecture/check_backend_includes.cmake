# cmake -DROOT=<source dir> -P check_backend_includes.cmake
# No file outside backends/ may include a concrete backend's header: the harness, the CLI, the
# reports, the cases and the tests of the other layers see a backend only through
# backends/backend.hpp and backends/registry.hpp (the interface and the provider table). Fails
# naming each offending line.
if(NOT ROOT)
  message(FATAL_ERROR "check_backend_includes.cmake needs -DROOT=<source dir>")
endif()
file(GLOB_RECURSE sources RELATIVE ${ROOT} ${ROOT}/*.cpp ${ROOT}/*.hpp ${ROOT}/*.h ${ROOT}/*.in)
set(offences "")
set(checked 0)
foreach(rel IN LISTS sources)
  if(rel MATCHES "^(backends|build|\\.)/" OR rel MATCHES "/\\.")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  file(STRINGS ${ROOT}/${rel} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]backends/")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "backends/(backend|registry)\\.hpp")
      string(STRIP "${line}" line)
      list(APPEND offences "${rel}: ${line}")
    endif()
  endforeach()
endforeach()
if(offences)
  list(JOIN offences "\n  " text)
  message(FATAL_ERROR "concrete backend headers included outside backends/ (use backends/backend.hpp or "
                      "backends/registry.hpp):\n  ${text}")
endif()
message(STATUS "backend includes: ${checked} files outside backends/ include only backend.hpp / registry.hpp")
