# cmake -DGRADPARITY=<gradparity> -DWHAT=<catalog|profiles|specials> -DDOC=<docs/ops.md|...> -DWORK=<dir>
#       -P check_catalog_doc.cmake
# A generated document is the output of `gradparity list WHAT`: fails when the catalog, the cases
# or the math profiles changed and the document did not.
execute_process(COMMAND ${GRADPARITY} list ${WHAT} OUTPUT_FILE ${WORK}/${WHAT}.md RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gradparity list ${WHAT} failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/${WHAT}.md ${DOC} RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "${DOC} is stale; regenerate it: gradparity list ${WHAT} > ${DOC}")
endif()
message(STATUS "${DOC} matches gradparity list ${WHAT}")
