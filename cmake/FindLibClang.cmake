# FindLibClang.cmake - locate libclang's C API (clang-c/Index.h + libclang.so).
#
# Prefers LLVM 19 and accepts 16..19, newest first. For each version it asks
# llvm-config-N (then plain llvm-config when it reports that major) and falls
# back to Debian's fixed layout /usr/lib/llvm-N/{include,lib}.
#
# Inputs (optional cache variables):
#   LIBCLANG_ROOT         an LLVM prefix to use instead of searching
#   LIBCLANG_VERSIONS     the majors to try, in order (default 19;18;17;16)
# Outputs:
#   LibClang_FOUND, LIBCLANG_MAJOR, LIBCLANG_INCLUDE_DIR, LIBCLANG_LIBRARY,
#   LIBCLANG_LIBRARY_DIR, and the imported target LibClang::LibClang.

set(LIBCLANG_VERSIONS "19;18;17;16" CACHE STRING "libclang majors to try, in order of preference")
set(LIBCLANG_ROOT "" CACHE PATH "LLVM prefix holding include/clang-c and lib/libclang.so (overrides the search)")

# _kp_libclang_try(<prefix-include> <prefix-lib> <major>): accept the pair when
# both the header and the shared library are there.
macro(_kp_libclang_try _inc _lib _major)
	if(NOT LIBCLANG_LIBRARY AND EXISTS "${_inc}/clang-c/Index.h")
		find_library(_kp_libclang_lib NAMES clang "clang-${_major}" libclang.so.1
			PATHS "${_lib}" NO_DEFAULT_PATH)
		if(_kp_libclang_lib)
			set(LIBCLANG_INCLUDE_DIR "${_inc}")
			set(LIBCLANG_LIBRARY "${_kp_libclang_lib}")
			set(LIBCLANG_LIBRARY_DIR "${_lib}")
			set(LIBCLANG_MAJOR "${_major}")
		endif()
		unset(_kp_libclang_lib CACHE)
	endif()
endmacro()

# The major recorded in clang-c/Index.h is the C API version, not LLVM's; ask
# clang/Basic/Version.inc or llvm-config when the prefix is given by hand.
function(_kp_libclang_major_of_prefix _prefix _out)
	set(_major "")
	if(EXISTS "${_prefix}/bin/llvm-config")
		execute_process(COMMAND "${_prefix}/bin/llvm-config" --version
			OUTPUT_VARIABLE _v OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
		string(REGEX MATCH "^[0-9]+" _major "${_v}")
	endif()
	if(NOT _major AND EXISTS "${_prefix}/include/clang/Basic/Version.inc")
		file(STRINGS "${_prefix}/include/clang/Basic/Version.inc" _l REGEX "CLANG_VERSION_MAJOR ")
		string(REGEX MATCH "[0-9]+" _major "${_l}")
	endif()
	if(NOT _major)
		string(REGEX MATCH "llvm-([0-9]+)" _m "${_prefix}")
		set(_major "${CMAKE_MATCH_1}")
	endif()
	set(${_out} "${_major}" PARENT_SCOPE)
endfunction()

unset(LIBCLANG_LIBRARY)
if(LIBCLANG_ROOT)
	_kp_libclang_major_of_prefix("${LIBCLANG_ROOT}" _root_major)
	_kp_libclang_try("${LIBCLANG_ROOT}/include" "${LIBCLANG_ROOT}/lib" "${_root_major}")
else()
	foreach(_v IN LISTS LIBCLANG_VERSIONS)
		if(LIBCLANG_LIBRARY)
			break()
		endif()
		find_program(_kp_llvm_config NAMES "llvm-config-${_v}" NO_CACHE)
		if(NOT _kp_llvm_config)
			# A plain llvm-config counts when it reports this major.
			find_program(_kp_llvm_config_plain NAMES llvm-config NO_CACHE)
			if(_kp_llvm_config_plain)
				execute_process(COMMAND "${_kp_llvm_config_plain}" --version
					OUTPUT_VARIABLE _pv OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
				if(_pv MATCHES "^${_v}\\.")
					set(_kp_llvm_config "${_kp_llvm_config_plain}")
				endif()
			endif()
		endif()
		if(_kp_llvm_config)
			execute_process(COMMAND "${_kp_llvm_config}" --includedir
				OUTPUT_VARIABLE _inc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
			execute_process(COMMAND "${_kp_llvm_config}" --libdir
				OUTPUT_VARIABLE _lib OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
			_kp_libclang_try("${_inc}" "${_lib}" "${_v}")
		endif()
		_kp_libclang_try("/usr/lib/llvm-${_v}/include" "/usr/lib/llvm-${_v}/lib" "${_v}")
		unset(_kp_llvm_config)
		unset(_kp_llvm_config_plain)
	endforeach()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibClang
	REQUIRED_VARS LIBCLANG_LIBRARY LIBCLANG_INCLUDE_DIR LIBCLANG_MAJOR
	FAIL_MESSAGE "libclang (16..19, 19 preferred) not found: run 'bash scripts/setup.sh' (installs libclang-19-dev) or pass -DLIBCLANG_ROOT=<llvm prefix>")

if(LibClang_FOUND AND NOT TARGET LibClang::LibClang)
	add_library(LibClang::LibClang SHARED IMPORTED)
	set_target_properties(LibClang::LibClang PROPERTIES
		IMPORTED_LOCATION "${LIBCLANG_LIBRARY}"
		INTERFACE_INCLUDE_DIRECTORIES "${LIBCLANG_INCLUDE_DIR}")
endif()
mark_as_advanced(LIBCLANG_INCLUDE_DIR LIBCLANG_LIBRARY LIBCLANG_LIBRARY_DIR)
