#!/usr/bin/env bash
# cmake_module.sh - find_package(kpipe) and kpipe_pipeline_sources() against
# the build under test installed into a temporary prefix, on the project of
# tests/fixtures/cmake_module (one tiled kernel, one with nothing to
# pipeline): the generated files replace the originals among the target's
# sources, the tiled one is pipelined (STAGES reaching kpipe), the other
# compiled as written, the originals untouched; an edit re-runs the step, a
# file kpipe cannot parse fails the build.  With nvcc the project is
# compiled for sm_80 (and run where there is a GPU); without, only the
# generation target demo_kpipe is built and a SKIP line says so (in the
# sanitizer build too, with a note: nvcc's part runs no kpipe).  Then
# cmake/kpipe_rewrite.cmake, the build step itself, with stand-ins for kpipe:
# a kpipe that writes nothing for a file with nothing to pipeline (exit 1)
# and one that writes the text unchanged (exit 0) both give a copy of the
# original; an error fails, or with ON_ERROR=COPY warns and copies; an
# earlier output never survives.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir cmake_module
build="${KPIPE_BUILD_DIR:-$root/build}"
fixture="$root/tests/fixtures/cmake_module"
p="$tmp/prefix"

cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1
check "cmake --install: exit 0" test $? -eq 0 || cat "$tmp/install.log"

nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
cuda=OFF
cuda_args=()
if grep -q '^KPIPE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
	# nvcc's part does not run kpipe: the plain build's run compiles the project
	echo "note: sanitizer build: the project is generated here, compiled in the plain build's run"
elif [ -x "$nvcc" ]; then
	cuda=ON
	cuda_args=(-DCMAKE_CUDA_COMPILER="$nvcc")
fi

# --- the project ---------------------------------------------------------------------
w="$tmp/proj"
b="$w/build"
g="$b/kpipe/demo"
cp -r "$fixture" "$w"
cmake -S "$w" -B "$b" -DCMAKE_PREFIX_PATH="$p" -DDEMO_CUDA=$cuda "${cuda_args[@]}" >"$tmp/cfg.log" 2>&1
check "configure with find_package(kpipe): exit 0" test $? -eq 0 || cat "$tmp/cfg.log"
check "the target compiles the generated tiled.cu" grep -qx "$g/tiled.cu" "$b/demo_sources.txt"
check "the target compiles the generated scale.cu" grep -qx "$g/scale.cu" "$b/demo_sources.txt"
check "the originals left the target's sources" sh -c "! grep -Eq '^($w/)?(tiled|scale)\\.cu\$' '$b/demo_sources.txt'"
if [ $cuda = ON ]; then
	check "main.cu stays among the sources" grep -Eq "^($w/)?main\\.cu\$" "$b/demo_sources.txt"
fi

cmake --build "$b" --target demo_kpipe -j2 >"$tmp/build.log" 2>&1
check "build demo_kpipe: exit 0" test $? -eq 0 || cat "$tmp/build.log"
check "tiled.cu pipelined (two buffers)" grep -q '__shared__ float as\[2\]\[TILE\]\[TILE\]' "$g/tiled.cu"
check "scale.cu, nothing to pipeline: as written" cmp -s "$g/scale.cu" "$w/scale.cu"
check "the originals are untouched" sh -c "cmp -s '$w/tiled.cu' '$fixture/tiled.cu' && cmp -s '$w/scale.cu' '$fixture/scale.cu'"
cmake --build "$b" --target demo_kpipe -j2 >"$tmp/build.log" 2>&1
check "nothing changed: kpipe does not run again" sh -c "! grep -q 'kpipe: pipelining' '$tmp/build.log'"

if [ $cuda = ON ]; then
	cmake --build "$b" -j2 >"$tmp/build.log" 2>&1
	check "nvcc compiles the pipelined project: exit 0" test $? -eq 0 || tail -30 "$tmp/build.log"
	check "the object comes from the generated tiled.cu" test -f "$b/CMakeFiles/demo.dir/kpipe/demo/tiled.cu.o"
	check "no object from the original tiled.cu" test ! -e "$b/CMakeFiles/demo.dir/tiled.cu.o"
	if kp_have_gpu; then
		"$b/demo" >"$tmp/run" 2>&1
		check "the pipelined demo runs and agrees with the CPU" grep -qx 'demo: ok' "$tmp/run"
	else
		echo "note: no GPU: the compiled demo was not run"
	fi
elif [ ! -x "$nvcc" ]; then
	echo "SKIP: nvcc not found: the pipelined sources were generated (demo_kpipe) but not compiled"
fi

# an edit of the original re-runs kpipe
sed -i 's|float sum = 0.0f;|float sum = 0.0f; /* edited */|' "$w/tiled.cu"
cmake --build "$b" --target demo_kpipe -j2 >"$tmp/build.log" 2>&1
check "edited original: regenerated" grep -q 'edited' "$g/tiled.cu"
check "edited original: only that file" sh -c "grep -q 'pipelining tiled.cu' '$tmp/build.log' && ! grep -q 'pipelining scale.cu' '$tmp/build.log'"

# STAGES reaches kpipe
cmake -S "$w" -B "$b" -DDEMO_STAGES=3 >"$tmp/cfg.log" 2>&1
cmake --build "$b" --target demo_kpipe -j2 >"$tmp/build.log" 2>&1
check "STAGES 3: three buffers" grep -q '__shared__ float as\[3\]\[TILE\]\[TILE\]' "$g/tiled.cu"

# a file kpipe cannot parse fails the build, and leaves no stale output (a
# syntax error in device code: one in a host declaration is left out of
# kpipe's parse with a note, docs/parse-coverage.md)
echo '__global__ void broken_kernel(int *p) { *p = ; }' >>"$w/tiled.cu"
cmake --build "$b" --target demo_kpipe -j2 >"$tmp/build.log" 2>&1
check "unparsable original: the build fails" test $? -ne 0
check "unparsable original: kpipe's error shown" grep -q "kpipe failed on $w/tiled.cu" "$tmp/build.log"
check "unparsable original: no stale output" test ! -e "$g/tiled.cu"

# --- the build step with stand-ins for kpipe ---------------------------------------------
step="$p/share/cmake/kpipe/kpipe_rewrite.cmake"
s="$tmp/step"
mkdir -p "$s"
printf 'int x;\n' >"$s/in.cu"
stand_in() { # NAME BODY: an executable $s/NAME running BODY with kpipe's arguments
	printf '#!/bin/sh\n%s\n' "$2" >"$s/$1"
	chmod +x "$s/$1"
}
# shellcheck disable=SC2016 # the stand-ins' own arguments
stand_in nothing 'echo "$@" >"$0.args"; exit 1'
# shellcheck disable=SC2016
stand_in unchanged 'cat "$2" >"$4"; echo "// kpipe wrote this" >>"$4"; exit 0'
stand_in broken 'echo "error: boom" >&2; exit 3'
run_step() { # KPIPE [-DNAME=VALUE...]
	local k="$1"
	shift
	cmake -DKPIPE="$s/$k" -DSRC="$s/in.cu" -DDST="$s/out/in.cu" "$@" -P "$step" >"$s/log" 2>&1
}
mkdir -p "$s/out"
echo stale >"$s/out/in.cu"
run_step nothing "-DOPTS=--arch|sm_80" "-DINCLUDES=/i1|/i2" "-DDEFINES=A=1|B"
check "step, kpipe writes nothing (exit 1): succeeds" test $? -eq 0
check "step, kpipe writes nothing (exit 1): a copy of the original" cmp -s "$s/in.cu" "$s/out/in.cu"
check "step: kpipe's arguments" test "$(cat "$s/nothing.args")" = \
	"rewrite $s/in.cu -o $s/out/in.cu --arch sm_80 -I/i1 -I/i2 -DA=1 -DB"
run_step unchanged
check "step, kpipe writes the text (exit 0): succeeds" test $? -eq 0
check "step, kpipe writes the text (exit 0): kpipe's output kept" grep -q 'kpipe wrote this' "$s/out/in.cu"
run_step broken
check "step, kpipe fails (exit 3): fails" test $? -ne 0
check "step, kpipe fails: its message shown" grep -q 'error: boom' "$s/log"
check "step, kpipe fails: no output" test ! -e "$s/out/in.cu"
run_step broken -DON_ERROR=COPY
check "step, kpipe fails, ON_ERROR=COPY: succeeds" test $? -eq 0
check "step, kpipe fails, ON_ERROR=COPY: warns" grep -q 'kpipe failed on' "$s/log"
check "step, kpipe fails, ON_ERROR=COPY: the original" cmp -s "$s/in.cu" "$s/out/in.cu"

kp_summary cmake_module
