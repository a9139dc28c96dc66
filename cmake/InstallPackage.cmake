# `cmake --install build/ci --prefix P`: the gradparity command, the headers and a relocatable,
# versioned CMake package. find_package(gradparity CONFIG) then gives
#   gradparity::plugin       the plugin ABI, include/gradparity/plugin.h (C, INTERFACE, nothing to link)
#   gradparity::backend_api  backends/backend.hpp and core/ with the static gp_core, for a C++ backend
#   gradparity::gradparity   the command (imported executable)
# Every installed path is relative to the prefix; installed binaries carry no debug information,
# whose file names are the build machine's (tests/plugin checks the tree for those paths).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(gp_plugin_abi INTERFACE)
target_include_directories(gp_plugin_abi INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                   $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(gp_plugin_abi PROPERTIES EXPORT_NAME plugin)

add_library(gp_backend_api INTERFACE)
target_link_libraries(gp_backend_api INTERFACE gp_core)
set_target_properties(gp_backend_api PROPERTIES EXPORT_NAME backend_api)
set_target_properties(gp_core PROPERTIES EXPORT_NAME core)

set(GP_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gradparity)
install(TARGETS gradparity EXPORT gradparityTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS gp_core gp_plugin_abi gp_backend_api EXPORT gradparityTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/gradparity/plugin.h include/gradparity/host_fma_probe.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gradparity)
# The C++ backend API keeps its source-tree include paths ("core/op.hpp", "backends/backend.hpp")
# under include/gradparity/.
file(GLOB GP_CORE_HEADERS ${PROJECT_SOURCE_DIR}/core/*.hpp)
install(FILES ${GP_CORE_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gradparity/core)
install(FILES backends/backend.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gradparity/backends)
install(CODE "
  foreach(f \${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/gradparity
            \${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:gp_core>)
    execute_process(COMMAND ${CMAKE_OBJCOPY} --strip-debug \$ENV{DESTDIR}\${f} COMMAND_ERROR_IS_FATAL ANY)
  endforeach()")

install(EXPORT gradparityTargets NAMESPACE gradparity:: DESTINATION ${GP_PACKAGE_DIR})
configure_package_config_file(cmake/gradparityConfig.cmake.in ${PROJECT_BINARY_DIR}/gradparityConfig.cmake
                              INSTALL_DESTINATION ${GP_PACKAGE_DIR})
# 0.x: a minor version may change the backend API; the plugin ABI has its own version check.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gradparityConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gradparityConfig.cmake ${PROJECT_BINARY_DIR}/gradparityConfigVersion.cmake
        DESTINATION ${GP_PACKAGE_DIR})
