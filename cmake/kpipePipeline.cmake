# kpipePipeline.cmake - kpipe_pipeline_sources(), loaded by find_package(kpipe):
# compile pipelined copies of CUDA sources, generated at build time by
# `kpipe rewrite`, while the readable originals stay in the source tree.
#
#   kpipe_pipeline_sources(<target> FILES a.cu [b.cu ...]
#                          [VARIANT auto|cp-async|register|...] [ARCH sm_80]
#                          [STAGES n] [OUTPUT_DIR dir] [ARGS kpipe-args...]
#                          [DEPENDS files...] [ON_ERROR FAIL|COPY])
#
# For each FILE (relative to the current source directory) a custom command
# writes OUTPUT_DIR/<same relative path> (default OUTPUT_DIR:
# ${CMAKE_CURRENT_BINARY_DIR}/kpipe/<target>) with kpipe_rewrite.cmake; the
# generated file replaces the original among the target's sources (it is
# added when the original was not listed) and sees the original's directory
# as an include directory, so its quoted includes still resolve.  The command
# re-runs when the original, the kpipe executable or one of DEPENDS (headers
# the file includes, say) changes.  The parse gets the target's include
# directories and compile definitions; ARCH defaults to every entry of the
# target's CUDA_ARCHITECTURES as a list (else kpipe's default, sm_90).  A file with
# nothing to pipeline is compiled as written.  When kpipe fails on a file
# (exit 2 or more: a parse error, say) the build fails, or with ON_ERROR COPY
# warns and compiles the original.  The target <target>_kpipe generates the
# files alone (for a check without nvcc).  Call it in the directory that
# creates <target>.
include_guard(GLOBAL)
set(_KPIPE_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")

# _kpipe_arch_of(<target> <out>): every numbered entry of the target's
# CUDA_ARCHITECTURES ("70;80-real;90a") as kpipe's --arch list, oldest first
# ("sm_70,sm_80,sm_90": kpipe plans for each, docs/design.md "Several
# targets"), or "" when there is none ("native", "all", unset).
function(_kpipe_arch_of target out)
	get_target_property(archs ${target} CUDA_ARCHITECTURES)
	if(NOT archs)
		set(archs "${CMAKE_CUDA_ARCHITECTURES}")
	endif()
	set(nums "")
	foreach(a IN LISTS archs)
		if(a MATCHES "^([0-9]+)")
			list(APPEND nums "${CMAKE_MATCH_1}")
		endif()
	endforeach()
	list(REMOVE_DUPLICATES nums)
	list(SORT nums COMPARE NATURAL)
	list(TRANSFORM nums PREPEND "sm_")
	list(JOIN nums "," joined)
	set(${out} "${joined}" PARENT_SCOPE)
endfunction()

# _kpipe_options(<out> <variant> <arch> <stages> <args>): kpipe's options,
# joined with "|" so that they travel as one -D argument.
function(_kpipe_options out variant arch stages args)
	set(opts "")
	if(variant)
		list(APPEND opts --variant "${variant}")
	endif()
	if(arch MATCHES "^[0-9]+")
		set(arch "sm_${arch}")
	endif()
	if(arch)
		list(APPEND opts --arch "${arch}")
	endif()
	if(stages)
		list(APPEND opts --stages "${stages}")
	endif()
	list(APPEND opts ${args})
	list(JOIN opts "|" joined)
	set(${out} "${joined}" PARENT_SCOPE)
endfunction()

function(kpipe_pipeline_sources target)
	cmake_parse_arguments(PARSE_ARGV 1 KP "" "VARIANT;ARCH;STAGES;OUTPUT_DIR;ON_ERROR"
		"FILES;ARGS;DEPENDS")
	if(KP_UNPARSED_ARGUMENTS)
		message(FATAL_ERROR "kpipe_pipeline_sources: unknown arguments: ${KP_UNPARSED_ARGUMENTS}")
	endif()
	if(NOT TARGET ${target})
		message(FATAL_ERROR "kpipe_pipeline_sources: '${target}' is not a target")
	endif()
	if(NOT KP_FILES)
		message(FATAL_ERROR "kpipe_pipeline_sources(${target}): FILES names no file")
	endif()
	if(NOT TARGET kpipe::kpipe)
		message(FATAL_ERROR "kpipe_pipeline_sources: kpipe::kpipe is missing (call find_package(kpipe) first)")
	endif()
	get_target_property(tdir ${target} SOURCE_DIR)
	if(NOT tdir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
		message(FATAL_ERROR "kpipe_pipeline_sources(${target}): call it in ${tdir}, where the target is created")
	endif()
	if(NOT KP_ON_ERROR)
		set(KP_ON_ERROR FAIL)
	elseif(NOT KP_ON_ERROR MATCHES "^(FAIL|COPY)$")
		message(FATAL_ERROR "kpipe_pipeline_sources(${target}): ON_ERROR is FAIL or COPY, not '${KP_ON_ERROR}'")
	endif()
	if(KP_STAGES AND NOT KP_STAGES MATCHES "^[2-8]$")
		message(FATAL_ERROR "kpipe_pipeline_sources(${target}): STAGES is 2 to 8, not '${KP_STAGES}'")
	endif()
	if(NOT KP_OUTPUT_DIR)
		set(KP_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/kpipe/${target}")
	endif()
	get_filename_component(outdir "${KP_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
	if(NOT KP_ARCH)
		_kpipe_arch_of(${target} KP_ARCH)
	endif()
	_kpipe_options(opts "${KP_VARIANT}" "${KP_ARCH}" "${KP_STAGES}" "${KP_ARGS}")
	# the parse sees the target's include directories and definitions (a custom
	# target has its directory's)
	set(incs "$<JOIN:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,|>")
	set(defs "$<JOIN:$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>,|>")

	get_target_property(srcs ${target} SOURCES)
	if(NOT srcs)
		set(srcs "")
	endif()
	set(outs "")
	foreach(f IN LISTS KP_FILES)
		get_filename_component(abs "${f}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
		if(NOT EXISTS "${abs}")
			message(FATAL_ERROR "kpipe_pipeline_sources(${target}): ${abs} does not exist")
		endif()
		file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
		if(rel MATCHES "^\\.\\./")
			get_filename_component(rel "${abs}" NAME)
		endif()
		set(out "${outdir}/${rel}")
		if(out IN_LIST outs)
			message(FATAL_ERROR "kpipe_pipeline_sources(${target}): two files would be written to ${out}")
		endif()
		get_filename_component(absdir "${abs}" DIRECTORY)
		add_custom_command(OUTPUT "${out}"
			COMMAND "${CMAKE_COMMAND}" "-DKPIPE=$<TARGET_FILE:kpipe::kpipe>"
				"-DSRC=${abs}" "-DDST=${out}" "-DOPTS=${opts}" "-DINCLUDES=${incs}"
				"-DDEFINES=${defs}" "-DON_ERROR=${KP_ON_ERROR}"
				-P "${_KPIPE_MODULE_DIR}/kpipe_rewrite.cmake"
			DEPENDS "${abs}" "$<TARGET_FILE:kpipe::kpipe>"
				"${_KPIPE_MODULE_DIR}/kpipe_rewrite.cmake" ${KP_DEPENDS}
			COMMENT "kpipe: pipelining ${rel}"
			VERBATIM)
		set_source_files_properties("${out}" PROPERTIES INCLUDE_DIRECTORIES "${absdir}")
		# the original leaves the target's sources, however it was spelled
		set(kept "")
		foreach(s IN LISTS srcs)
			if(NOT s MATCHES "\\$<")
				get_filename_component(sabs "${s}" ABSOLUTE BASE_DIR "${tdir}")
				if(sabs STREQUAL abs)
					continue()
				endif()
			endif()
			list(APPEND kept "${s}")
		endforeach()
		set(srcs ${kept})
		list(APPEND outs "${out}")
	endforeach()
	set_property(TARGET ${target} PROPERTY SOURCES ${srcs} ${outs})
	# one generation target per call: <target>_kpipe, then <target>_kpipe_2 ...
	# (which <target>_kpipe depends on)
	get_target_property(calls ${target} KPIPE_PIPELINE_CALLS)
	if(NOT calls)
		add_custom_target(${target}_kpipe DEPENDS ${outs}
			COMMENT "kpipe: pipelined sources of ${target}")
		add_dependencies(${target} ${target}_kpipe)
		set(calls 1)
	else()
		math(EXPR calls "${calls} + 1")
		add_custom_target(${target}_kpipe_${calls} DEPENDS ${outs})
		add_dependencies(${target}_kpipe ${target}_kpipe_${calls})
	endif()
	set_property(TARGET ${target} PROPERTY KPIPE_PIPELINE_CALLS ${calls})
endfunction()
