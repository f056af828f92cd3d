# `cmake --install` and the .deb (CPack, `./dev package`): the binary, man pages and completions
# generated from it at build time (cmake/GenerateDocs.cmake), the docs and the copyright file.
include(GNUInstallDirs)

set(GPUADVISE_GENERATED ${CMAKE_CURRENT_BINARY_DIR}/generated)
set(GPUADVISE_DOCS_STAMP ${GPUADVISE_GENERATED}/docs.stamp)
add_custom_command(OUTPUT ${GPUADVISE_DOCS_STAMP}
  COMMAND ${CMAKE_COMMAND} -DGPUADVISE=$<TARGET_FILE:gpuadvise> -DOUT=${GPUADVISE_GENERATED}
          -DSTAMP=${GPUADVISE_DOCS_STAMP} -P ${PROJECT_SOURCE_DIR}/cmake/GenerateDocs.cmake
  DEPENDS gpuadvise ${PROJECT_SOURCE_DIR}/cmake/GenerateDocs.cmake
  COMMENT "Writing the man pages and shell completions from gpuadvise's command table"
  VERBATIM)
add_custom_target(gpuadvise_docs ALL DEPENDS ${GPUADVISE_DOCS_STAMP})

# The Debian changelog, compressed as policy 12.7 wants it.
set(GPUADVISE_CHANGELOG ${GPUADVISE_GENERATED}/changelog.gz)
add_custom_command(OUTPUT ${GPUADVISE_CHANGELOG}
  COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/packaging/changelog > ${GPUADVISE_CHANGELOG}
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog
  VERBATIM)
add_custom_target(gpuadvise_changelog ALL DEPENDS ${GPUADVISE_CHANGELOG})

install(TARGETS gpuadvise RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The download helper `catalog update` runs; gpuadvise looks for it in ../libexec/gpuadvise beside bin/
# (src/io/http_fetch.cpp). It links libcurl dynamically, so the package Depends on libcurl4.
install(TARGETS gpuadvise-fetch RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gpuadvise)
install(DIRECTORY ${GPUADVISE_GENERATED}/man/man1 DESTINATION ${CMAKE_INSTALL_MANDIR})
install(FILES ${GPUADVISE_GENERATED}/completions/gpuadvise
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${GPUADVISE_GENERATED}/completions/_gpuadvise
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${GPUADVISE_GENERATED}/completions/gpuadvise.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
set(GPUADVISE_DOCDIR ${CMAKE_INSTALL_DATADIR}/doc/gpuadvise)
install(FILES README.md ARCHITECTURE.md packaging/copyright ${GPUADVISE_CHANGELOG} DESTINATION ${GPUADVISE_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${GPUADVISE_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
install(FILES packaging/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME gpuadvise)

# The .deb. Depends: dpkg-shlibdeps reads what the binary links (nothing for the default static-pie
# binary, libc/libstdc++/yaml-cpp/... for -DGPUADVISE_STATIC=OFF).
set(GPUADVISE_MAINTAINER "gpuadvise developers <gpuadvise@example.invalid>"
    CACHE STRING "The Maintainer field of the .deb (Name <address>)")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpuadvise)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${GPUADVISE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "which GPU cloud offer to rent for a PyTorch job, and why")
# The extended description (CPack puts the summary above it as the synopsis line).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "gpuadvise tells a machine-learning engineer which GPU cloud offer to rent for
a PyTorch job, on which pricing plan (on-demand, reserved or spot), and why.
It reads a catalog of datasheet GPU specs and provider prices, each with its
source and as-of date (a snapshot is built in), analyses the job's memory,
training frequency, dataset and scaling, and ranks the offers by cost per run
and per month. It also compares GPUs, lists and filters offers, estimates
memory and time, and checks GPU, driver, CUDA and PyTorch compatibility.
Works offline; output as tables, JSON, CSV or Markdown.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${GPUADVISE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3")  # check-env reads torch through python3 when present
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/package)
include(CPack)
