# `cmake --install <build> --prefix P` and `cpack -G DEB`:
#   P/bin/llm-perf-opt
#   P/lib/llm-perf-opt/libllmpo_tracer.so, P/lib/llm-perf-opt/workloads/  (tracer/, workloads/)
#   P/share/llm-perf-opt/conf/            the configuration tree
#   P/share/doc/llm-perf-opt/             README.md and docs/
#   P/share/man/man1/llm-perf-opt.1       (when help2man is installed)
#   P/share/bash-completion/completions/llm-perf-opt
# The binary finds conf/, the tracer and the workloads relative to its own
# location, so the tree works under any prefix.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/conf/ DESTINATION share/llm-perf-opt/conf)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/llm-perf-opt)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION share/doc/llm-perf-opt)  # keeps docs/: README.md links to docs/...

set(CPACK_PACKAGE_NAME llm-perf-opt)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Profile CUDA programs with Nsight Systems and Nsight Compute, per NVTX region")
set(CPACK_PACKAGE_CONTACT "llm-perf-opt maintainers <llm-perf-opt@localhost>")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The build is RelWithDebInfo; the package carries stripped binaries.
set(CPACK_STRIP_FILES ON)
# The shared libraries the binary links (yaml-cpp, fmt, re2, sqlite3), found by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nsight-compute, nsight-systems")
include(CPack)
