# Packaging.cmake - what `cmake --install` puts where, the CMake package for
# users (find_package(kpipe)) and the Debian package (`cpack -G DEB`).
# Included by CMakeLists.txt once the kpipe target exists; GNUInstallDirs is
# already included there.  docs/building.md#installing describes the result.
#
#   bin/kpipe                                   the command
#   share/man/man1/kpipe.1                      docs/kpipe.1
#   share/bash-completion/completions/kpipe     completions/kpipe.bash
#   share/zsh/site-functions/_kpipe             completions/_kpipe
#   share/fish/vendor_completions.d/kpipe.fish  completions/kpipe.fish
#   share/doc/kpipe/                            README, CHANGELOG, LICENSE,
#                                               diagnostics.md, examples/
#   share/cmake/kpipe/                          kpipeConfig.cmake and friends
#
# The binary reads nothing from here at run time: the GPU harness is compiled
# in and the stand-in CUDA header it may need is written under $TMPDIR.

set(KPIPE_SRC "${PROJECT_SOURCE_DIR}")

install(FILES "${KPIPE_SRC}/docs/kpipe.1" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${KPIPE_SRC}/completions/kpipe.bash"
	DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions" RENAME kpipe)
install(FILES "${KPIPE_SRC}/completions/_kpipe"
	DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/site-functions")
install(FILES "${KPIPE_SRC}/completions/kpipe.fish"
	DESTINATION "${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d")
install(FILES "${KPIPE_SRC}/README.md" "${KPIPE_SRC}/CHANGELOG.md" "${KPIPE_SRC}/LICENSE"
	"${KPIPE_SRC}/docs/diagnostics.md"
	DESTINATION "${CMAKE_INSTALL_DOCDIR}")
# One sample and its launch description, for a first run of the installed
# command: kpipe rewrite --diff /usr/share/doc/kpipe/examples/matmul_32x32.cu
install(FILES "${KPIPE_SRC}/samples/matmul_32x32.cu" "${KPIPE_SRC}/samples/matmul_32x32.launch.json"
	DESTINATION "${CMAKE_INSTALL_DOCDIR}/examples")

# --- the CMake package -------------------------------------------------------
# kpipe::kpipe (the imported executable) and kpipe_pipeline_sources(); the
# files are architecture independent, so they go under share/.
include(CMakePackageConfigHelpers)
set(KPIPE_CMAKE_DIR "${CMAKE_INSTALL_DATADIR}/cmake/kpipe")
install(EXPORT kpipeTargets NAMESPACE kpipe:: DESTINATION "${KPIPE_CMAKE_DIR}")
configure_package_config_file("${KPIPE_SRC}/cmake/kpipeConfig.cmake.in"
	"${PROJECT_BINARY_DIR}/cmake/kpipeConfig.cmake"
	INSTALL_DESTINATION "${KPIPE_CMAKE_DIR}"
	NO_SET_AND_CHECK_MACRO)
# 0.x: a new minor version may change what the module does
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cmake/kpipeConfigVersion.cmake"
	VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/cmake/kpipeConfig.cmake"
	"${PROJECT_BINARY_DIR}/cmake/kpipeConfigVersion.cmake"
	"${KPIPE_SRC}/cmake/kpipePipeline.cmake"
	"${KPIPE_SRC}/cmake/kpipe_rewrite.cmake"
	DESTINATION "${KPIPE_CMAKE_DIR}")

# --- the Debian package --------------------------------------------------------
# `cpack -G DEB` in the build directory (or `cpack --config
# build/CPackConfig.cmake -B DIR`) writes kpipe_<version>_<arch>.deb.  The
# shared libraries' packages (libc6, libcjson1, libclang1-19) come from
# dpkg-shlibdeps; libclang finds clang's own headers (the CUDA wrappers every
# parse includes) in libclang-common-N-dev, which libclang1-N does not pull
# in.  A CUDA toolkit is needed for its headers but has no single package
# name (Debian's non-free nvidia-cuda-toolkit, NVIDIA's cuda-toolkit-X-Y):
# suggested, and looked for at run time (--cuda-path, CUDA_HOME, /usr/local/cuda).
set(KPIPE_PACKAGE_MAINTAINER "the kpipe authors" CACHE STRING
	"Maintainer field of the Debian package")
set(CPACK_PACKAGE_NAME kpipe)
set(CPACK_PACKAGE_VENDOR "the kpipe authors")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
	"software-pipeline the tiled K-loops of CUDA kernels, in the source")
set(CPACK_PACKAGE_DESCRIPTION
	"kpipe finds the tiled K-loops of CUDA kernels (a tile copied from global
into shared memory between two barriers, then used) and rewrites them into
software-pipelined loops with cp.async or register staging.  It reads CUDA
with libclang, explains what it saw (analyze), changes the file (rewrite),
checks the result with nvcc and the GPU (validate) and picks the fastest
variant by measurement (tune).")
set(CPACK_RESOURCE_FILE_LICENSE "${KPIPE_SRC}/LICENSE")
set(CPACK_PACKAGE_CONTACT "${KPIPE_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${KPIPE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
find_program(KPIPE_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(KPIPE_DPKG_SHLIBDEPS)
if(KPIPE_DPKG_SHLIBDEPS)
	set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
	set(CPACK_DEBIAN_PACKAGE_DEPENDS "libclang-common-${LIBCLANG_MAJOR}-dev")
else()
	# without dpkg-dev: the same packages, unversioned
	set(CPACK_DEBIAN_PACKAGE_DEPENDS
		"libc6, libcjson1, libclang1-${LIBCLANG_MAJOR}, libclang-common-${LIBCLANG_MAJOR}-dev")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit | cuda-toolkit, cmake")
include(CPack)
