# kpipe_rewrite.cmake - one build step of kpipe_pipeline_sources()
# (kpipePipeline.cmake): writes DST, the pipelined SRC.
#
#   cmake -DKPIPE=kpipe -DSRC=a.cu -DDST=gen/a.cu [-DOPTS=--arch|sm_80]
#         [-DINCLUDES=dir|dir] [-DDEFINES=N=1|M] [-DON_ERROR=FAIL|COPY]
#         -P kpipe_rewrite.cmake
#
# Lists are joined with "|" (one -D argument each).  `kpipe rewrite SRC -o DST`
# exits 0 when it wrote DST, the unchanged text when there was nothing to
# pipeline or every loop was refused; an older kpipe exited 1 and wrote
# nothing then, which is fine too: DST is then a copy of SRC.  Exit 2 or more
# (usage, parse error ...) fails the step with kpipe's messages, or with
# ON_ERROR=COPY warns and copies SRC.  DST never keeps an earlier run's text.
foreach(v KPIPE SRC DST)
	if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
		message(FATAL_ERROR "kpipe_rewrite.cmake: -D${v}=... is missing")
	endif()
endforeach()
string(REPLACE "|" ";" opts "${OPTS}")
string(REPLACE "|" ";" incs "${INCLUDES}")
string(REPLACE "|" ";" defs "${DEFINES}")
set(args ${opts})
foreach(i IN LISTS incs)
	if(NOT i STREQUAL "")
		list(APPEND args "-I${i}")
	endif()
endforeach()
foreach(d IN LISTS defs)
	if(NOT d STREQUAL "")
		list(APPEND args "-D${d}")
	endif()
endforeach()

get_filename_component(dir "${DST}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(REMOVE "${DST}")
execute_process(COMMAND "${KPIPE}" rewrite "${SRC}" -o "${DST}" ${args}
	RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
string(STRIP "${err}" err)
if(rc MATCHES "^[01]$")
	if(err)
		# refusals and notes: why a loop was left alone
		message(NOTICE "${err}")
	endif()
	if(NOT EXISTS "${DST}")
		configure_file("${SRC}" "${DST}" COPYONLY)
	endif()
	return()
endif()
file(REMOVE "${DST}")
if(ON_ERROR STREQUAL "COPY")
	message(WARNING "kpipe failed on ${SRC} (${rc}); compiling it as written:\n${err}")
	configure_file("${SRC}" "${DST}" COPYONLY)
else()
	message(FATAL_ERROR "kpipe failed on ${SRC} (${rc}):\n${err}\n"
		"(kpipe_pipeline_sources(... ON_ERROR COPY) compiles the original instead)")
endif()
