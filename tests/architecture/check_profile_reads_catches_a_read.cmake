# cmake -DROOT=<source dir> -DWORK=<dir> -P check_profile_reads_catches_a_read.cmake
# The profile-read check must pass on the tree as it is and fail, naming the file, on a copy in
# which a reference file asks the profile for a budget itself, and on one in which it reads the
# flush mode itself.
include(${CMAKE_CURRENT_LIST_DIR}/expect_caught.cmake)
set(copy ${WORK}/profile-reads-copy)
file(REMOVE_RECURSE ${copy})
foreach(dir reference harness cases)
  file(COPY ${ROOT}/${dir} DESTINATION ${copy})
endforeach()
set(victim ${copy}/reference/softmax_row.cpp)
file(READ ${victim} text)
file(WRITE ${victim}
     "${text}\n// planted\nstatic double planted(const gp::ref::TrackingContext& c) { return c.profile->budget(gp::MathFn::exp, "
     "gp::DType::f32, 0, 1, 0).ulps; }\n")
gp_expect_caught(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_profile_reads.cmake INTACT -DROOT=${ROOT} BROKEN -DROOT=${copy}
                 PATTERN "reference/softmax_row.cpp" WHAT "a budget read outside tracked.cpp")

# And on a copy in which a reference file reads the flush mode itself, uncounted.
file(WRITE ${victim}
     "${text}\n// planted\nstatic bool planted_flush(const gp::ref::TrackingContext& c) { return c.flush; }\n")
gp_expect_caught(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_profile_reads.cmake INTACT -DROOT=${ROOT} BROKEN -DROOT=${copy}
                 PATTERN "reference/softmax_row.cpp" WHAT "a flush mode read outside tracked.cpp")
