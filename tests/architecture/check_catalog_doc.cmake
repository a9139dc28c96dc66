# cmake -DGRADPARITY=<gradparity> -DDOC=<docs/ops.md> -DWORK=<dir> -P check_catalog_doc.cmake
# docs/ops.md is the output of `gradparity list catalog`: fails when the catalog or the cases
# changed and the document did not.
execute_process(COMMAND ${GRADPARITY} list catalog OUTPUT_FILE ${WORK}/ops.md RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gradparity list catalog failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/ops.md ${DOC} RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "${DOC} is stale; regenerate it: gradparity list catalog > docs/ops.md")
endif()
message(STATUS "docs/ops.md matches the catalog")
