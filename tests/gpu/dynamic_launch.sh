#!/usr/bin/env bash
# dynamic_launch.sh - the GPU proof of dynamic shared memory with the
# launches kpipe edits, for two whole programs in tests/gpu/dynamic_launch/:
#   program.cu         static tiles that fit the 48 KB limit once: they move
#                      to dynamic shared memory; a 2-argument and a
#                      4-argument launch get the bytes;
#   program_extern.cu  tiles carved out of extern shared memory: one copy of
#                      the region per stage; both launches pass the stages
#                      times their bytes.
# Each is rewritten with --variant cp-async, --variant register, --stages 3
# and --stages 4; every program is built with nvcc, run (it checks C
# against a CPU reference at three sizes and prints OK), and run again
# under compute-sanitizer memcheck, racecheck and synccheck.  The originals
# are run the same way.  Needs a CUDA GPU: elsewhere it prints a SKIP line
# and exits 77 (skipped, never passed).
#
#   tests/gpu/dynamic_launch.sh [DIR]
# With DIR holding PROGRAM.VARIANT.cu files already rewritten (the device
# machine has no kpipe build), those are used instead of running kpipe.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
if ! kp_have_gpu; then
	echo "SKIP: no CUDA GPU on this machine (results from the H200 are in docs/benchmarks.md)"
	exit 77
fi
kp_tmpdir gpu-dynamic-launch
dir="${1:-$tmp/rw}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
san="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
arch="${KP_GPU_ARCH:-sm_90}"
variants="cp-async register s3 s4"
pass=0
fail=0
for prog in program program_extern; do
	src="$root/tests/gpu/dynamic_launch/$prog.cu"
	if [ -z "${1:-}" ]; then
		mkdir -p "$dir"
		for v in $variants; do
			case $v in
			s3) args="--stages 3" ;;
			s4) args="--stages 4" ;;
			*) args="--variant $v" ;;
			esac
			# shellcheck disable=SC2086
			"$kpipe" rewrite $args "$src" -o "$dir/$prog.$v.cu" || echo "FAIL: kpipe $args $prog"
		done
	fi
	cp "$src" "$dir/$prog.original.cu" 2>/dev/null
	for v in original $variants; do
		f="$dir/$prog.$v.cu"
		if [ ! -f "$f" ]; then
			echo "FAIL $prog $v: no rewrite"
			fail=$((fail + 1))
			continue
		fi
		if ! "$nvcc" -O3 -arch="$arch" -lineinfo -o "$tmp/p.$v" "$f" 2>"$tmp/nv.$v"; then
			echo "FAIL $prog $v: nvcc: $(head -c 400 "$tmp/nv.$v")"
			fail=$((fail + 1))
			continue
		fi
		out=$("$tmp/p.$v" 2>&1)
		if printf '%s\n' "$out" | grep -qx OK; then
			echo "PASS $prog $v: $(printf '%s' "$out" | tr '\n' ' ')"
			pass=$((pass + 1))
		else
			echo "FAIL $prog $v: $out"
			fail=$((fail + 1))
		fi
		for tool in memcheck racecheck synccheck; do
			if "$san" --tool "$tool" --error-exitcode 9 "$tmp/p.$v" >"$tmp/san.$v.$tool" 2>&1; then
				echo "PASS $prog $v $tool: $(grep -m1 'ERROR SUMMARY\|RACECHECK SUMMARY' "$tmp/san.$v.$tool")"
				pass=$((pass + 1))
			else
				echo "FAIL $prog $v $tool: $(tail -5 "$tmp/san.$v.$tool")"
				fail=$((fail + 1))
			fi
		done
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
