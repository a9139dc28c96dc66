# cmake -DROOT=<source dir> -DWORK=<dir> -P check_layers_catches_a_planted_include.cmake
# The layering check must pass on the tree as it is and fail, naming the file, on a copy in which
# a graph file includes training (the arrow running back up that this layering removed).
include(${CMAKE_CURRENT_LIST_DIR}/expect_caught.cmake)
set(copy ${WORK}/layers-copy)
file(REMOVE_RECURSE ${copy})
foreach(dir harness results reports)
  file(COPY ${ROOT}/${dir} DESTINATION ${copy})
endforeach()
set(victim ${copy}/harness/graph/composite_graph.cpp)
file(READ ${victim} text)
file(WRITE ${victim} "#include \"harness/training/training.hpp\"\n${text}")
gp_expect_caught(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_layers.cmake INTACT -DROOT=${ROOT} BROKEN -DROOT=${copy}
                 PATTERN "harness/graph/composite_graph.cpp" WHAT "a graph file that includes training")
