#!/usr/bin/env bash
# sass_smoke.sh - `kpipe validate` end to end with the real nvcc and
# cuobjdump/nvdisasm on the kernels in tests/fixtures/sass/: the verdicts,
# the findings and the exit codes.  Needs nvcc (exit 77 without it) and a
# disassembler (exit 77 without one); no GPU.
#
# Uses $KPIPE when it has the validate command, else builds
# tests/nvcc/validate_driver.c with the validator's sources.  Checks only
# wording and figures that do not depend on the nvcc version, except where
# noted (register counts of CUDA 13.0 for the cliff case).
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fx=$root/tests/fixtures/sass

if ! command -v nvcc >/dev/null 2>&1 &&
	! [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] &&
	! [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ] &&
	! [ -x /usr/local/cuda/bin/nvcc ]; then
	echo "SKIP: nvcc not found"
	exit 77
fi

kp_tmpdir nvcc-sass-smoke

if [ -n "${KPIPE:-}" ] && [ -x "$KPIPE" ] && "$KPIPE" validate --help >/dev/null 2>&1; then
	validate() { "$KPIPE" validate "$@"; }
	echo "using $KPIPE validate"
else
	cc=${CC:-cc}
	# (the embedded GPU harness is a header CMake generates in the build tree)
	if ! "$cc" -std=c11 -Wall -Wextra -Werror -I"$root/src/base" -I"$root/src/validate" \
		-I"$root/src/gpu" -I"$root/src/cli" \
		-I"${KPIPE_BUILD_DIR:-$root/build}/generated" -o "$tmp/validate" \
		"$root/tests/nvcc/validate_driver.c" "$root/src/cli/cmd_validate.c" \
		"$root"/src/validate/{validate,validate_result,resources,sass,cuda_env}.c \
		"$root"/src/base/{arch,util,proc,safe_write}.c "$root"/src/gpu/{gpu_gen,gpu_run,events}.c \
		-lcjson -ldl 2>"$tmp/build.log"; then
		cat "$tmp/build.log"
		echo "FAIL: cannot build the validate driver"
		exit 1
	fi
	validate() { "$tmp/validate" validate "$@"; }
	echo "using the validate driver built from $root/src"
fi

fails=0
# check NAME EXPECTED_EXIT 'PATTERN...' -- ARGS...: runs validate with ARGS
# and wants the exit code and every fixed-string pattern in the output.
check() {
	local name=$1 want=$2
	shift 2
	local pats=()
	while [ "$1" != "--" ]; do
		pats+=("$1")
		shift
	done
	shift
	validate "$@" >"$tmp/out" 2>&1
	local got=$?
	local ok=1
	[ "$got" = "$want" ] || ok=0
	for p in "${pats[@]}"; do
		grep -qF -- "$p" "$tmp/out" || { ok=0; echo "  missing: $p"; }
	done
	if [ $ok = 1 ]; then
		echo "ok   $name"
	else
		echo "FAIL $name (exit $got, wanted $want)"
		sed 's/^/  | /' "$tmp/out"
		fails=$((fails + 1))
	fi
}

cd "$fx" || exit 1

# A disassembler is needed for step 2: without one the run is incomplete.
validate naive.cu cp_async.cu >"$tmp/probe" 2>&1
if [ $? = 6 ] && grep -q "no cuobjdump or nvdisasm found" "$tmp/probe"; then
	echo "SKIP: no cuobjdump or nvdisasm found"
	exit 77
fi

# The fixtures have no launch description: the GPU steps are skipped and a
# run whose static steps pass is incomplete (6).
check cp_async 6 "step 1  resources  PASSED" "step 2  sass       PASSED" \
	"matmul_tiled: PASS" "LDGSTS" "result: INCOMPLETE (3 steps skipped)" \
	"step 3  gpu-run    SKIPPED: no launch description: naive.launch.json not found" \
	"step 5  sanitizer  SKIPPED: no launch description" -- naive.cu cp_async.cu
check reg_staged 6 "step 2  sass       PASSED" "matmul_tiled: PASS" -- \
	naive.cu reg_staged.cu --arch sm_90 --threads 1024
check barrier_between 4 "step 2  sass       FAILED" "no overlap: every load is followed by a barrier" \
	"matmul_tiled: FAIL" -- naive.cu broken_barrier.cu
# CUDA 13.0: 32 -> 40 registers, 2 -> 1 blocks of 1024 threads
check local_memory 4 "occupancy cliff crossed: 2 -> 1 blocks/SM" \
	"new local-memory traffic in the main loop: LDL 0 -> 32, STL 0 -> 32" -- \
	naive.cu spill.cu --threads 1024
check loads_sunk_after_math 4 "of 512 math instructions" "the loads are issued after most of the math" -- \
	tile128.cu tile128_staged.cu
check unchanged 4 "nothing was pipelined" "matmul_tiled: unchanged" -- naive.cu naive.cu
check kernel_filter 6 "matmul_tiled: PASS" -- naive.cu cp_async.cu --kernel matmul_tiled
check kernel_filter_none 4 "no kernel matches 'nope' in either file" -- \
	naive.cu cp_async.cu --kernel nope
check json 6 '"exit_code":	6' '"status":	"PASSED"' '"overlap":	true' -- \
	naive.cu cp_async.cu --format json
check nvcc_args 6 "step 1  resources  PASSED" -- naive.cu cp_async.cu -DUNUSED=1 -- -lineinfo
check compile_error 4 "cannot compile" -- naive.cu "$root/tests/nvcc/validate_driver.c"
check missing_input 3 "cannot read 'nope.cu'" -- naive.cu nope.cu
check unknown_arch 2 "unknown target 'sm_1'" -- naive.cu cp_async.cu --arch sm_1
check bad_threads 2 "invalid --threads '0'" -- naive.cu cp_async.cu --threads 0
check no_files 2 "expected two files" -- naive.cu
check no_nvcc 5 "no bin/nvcc under --cuda-path" -- naive.cu cp_async.cu --cuda-path "$tmp"

if [ $fails -gt 0 ]; then
	echo "$fails case(s) failed"
	exit 1
fi
echo "all cases passed"
