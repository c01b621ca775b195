#!/usr/bin/env bash
# rewrite_samples.sh - the CI proof of `kpipe rewrite` without a GPU: for
# every sample and both variants, kpipe must rewrite the eligible samples
# (exit 0) and refuse the others (exit 0, the input written unchanged, with a
# [kpipe-...] diagnostic or no candidate loop at all); every rewrite
# must compile with nvcc for sm_80 and sm_90 with no warning the original
# does not have, and `kpipe validate` must pass its resource and SASS steps
# (next tile's LDGSTS/LDG before the math with no BAR.SYNC between, same
# math count per iteration, no LDL/STL, no spills); the samples with
# conflicted tiles rewritten with --pad as well, and XOR-swizzled.
# Exit 77 (skipped) when nvcc is missing.
#
# CI time (docs/building.md): where `kpipe validate` follows, the test's
# own nvcc run (nvcc -c: host code and device code) builds for sm_80 only:
# validate's step 1 compiles both files for sm_90 and passes only when
# both compile and the rewrite has no warning the original lacks, which is
# the sm_90 half of the check.  KPIPE_VALIDATE_CACHE (this run's folder)
# lets validate compile and disassemble each original once, not once per
# variant, and the disassemblers' folder goes on PATH so that validate does
# not ask python3 where the pip wheels are on every run.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
# Register-staged rewrites where ptxas issues the next tile's LDGs after
# most of the math.  validate must report exactly that verdict for them;
# any other outcome fails this test.  Empty since the prefetch ends with
# __syncwarp() (transforms/reg_staging.c), which keeps ptxas from sinking
# the loads of sgemm_128x128x8, matmul_ptr_bump and matmul_barrier_top.
late_loads=" wmma_persistent_staged.register "
# Kernels with several K-loops: validate judges one main loop per kernel,
# the one with the most math in each file, and ptxas unrolls the two files'
# loops differently, so the loops compared need not be the same K-loop.
# Their SASS step must pass or fail on the math count only.
several_kloops=" attention_two_pass "
kp_tmpdir nvcc-samples
export KPIPE_VALIDATE_CACHE="$tmp/validate-cache"
cuobjdump=$("$kpipe" version | sed -n 's/^cuobjdump: //p')
if [ -x "$cuobjdump" ] && ! command -v cuobjdump >/dev/null; then
	PATH="$(dirname "$cuobjdump"):$PATH"
fi
# the samples' own headers, for the rewrites written here
cp "$root"/samples/*.cuh "$tmp/"
# Steps 1-2 of `kpipe validate` passed.  The GPU steps are tests/gpu's
# business: --sizes tiny keeps them short where there is a GPU; without one
# they are skipped and the run is incomplete (exit 6).
static_ok() { # REPORT EXIT
	{ [ "$2" -eq 0 ] || [ "$2" -eq 6 ]; } && grep -q "^step 1  resources  PASSED" "$1" &&
		grep -q "^step 2  sass       PASSED" "$1"
}
for src in "$root"/samples/*.cu; do
	name=$(basename "$src" .cu)
	spec="${src%.cu}.launch.json"
	# the spec's eligible flag, threads per block and (a transposing copy
	# cp.async cannot make) the variants that do not apply, each of which
	# must be refused with the reason: one python3 (CI time)
	read -r eligible threads unavailable < <(python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); n=1
for x in d['block']: n*=int(eval(str(x)))
print(d.get('eligible', True), n, ' '.join(d.get('variants_unavailable', [])))" "$spec")
	for v in cp-async register register-ca; do
		out="$tmp/$name.$v.cu"
		"$kpipe" rewrite --variant "$v" "$src" -o "$out" 2>"$tmp/err"
		rc=$?
		if [ "$eligible" = "True" ] && [[ " $unavailable " == *" $v "* ]]; then
			if [ $rc -eq 0 ] && cmp -s "$out" "$src" && grep -q '\[kpipe-variant-unavailable\]' "$tmp/err"; then ok; else bad "$name $v: expected kpipe-variant-unavailable (rc=$rc)"; fi
			continue
		fi
		if [ "$eligible" != "True" ]; then
			# refused with a diagnostic, or (the transposes) no candidate loop at all
			if [ $rc -eq 0 ] && cmp -s "$out" "$src" && { grep -q '\[kpipe-' "$tmp/err" ||
				grep -q ' 0 candidate loops' <<<"$("$kpipe" analyze "$src" 2>&1)"; }; then ok; else bad "$name $v: expected a refusal (rc=$rc)"; fi
			continue
		fi
		if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
			bad "$name $v: rewrite rc=$rc: $(head -c 300 "$tmp/err")"
			continue
		fi
		kp_nvcc_arches=80 kp_nvcc_check "$name $v" "$src" "$out"
		"$kpipe" validate "$src" "$out" --arch sm_90 --threads "$threads" --sizes tiny >"$tmp/val" 2>&1
		vrc=$?
		case "$late_loads$several_kloops" in
		*" $name "*)
			if { [ $vrc -eq 0 ] || [ $vrc -eq 6 ] || [ $vrc -eq 4 ]; } &&
				grep -q "^step 1  resources  PASSED" "$tmp/val" &&
				grep -qE "^step 2  sass       (PASSED|FAILED: [a-z_]*: math per iteration differs)" "$tmp/val"; then
				ok
			else
				bad "$name $v: validate: expected step 2 to pass or to compare two different K-loops (rc=$vrc)"
				sed 's/^/    /' "$tmp/val" | head -20
			fi
			;;
		*" $name.$v "*)
			if [ $vrc -eq 4 ] && grep -q "step 1  resources  PASSED" "$tmp/val" &&
				grep -q "step 2  sass       FAILED: .*no overlap" "$tmp/val"; then
				ok
			else
				bad "$name $v: expected validate to report late loads (rc=$vrc)"
				sed 's/^/    /' "$tmp/val" | head -20
			fi
			;;
		*)
			if static_ok "$tmp/val" $vrc; then
				ok
			else
				bad "$name $v: validate failed (rc=$vrc):"
				sed 's/^/    /' "$tmp/val" | head -40
			fi
			;;
		esac
		# rewriting the output again changes nothing
		"$kpipe" rewrite "$out" -o "$tmp/again.cu" 2>/dev/null
		rc=$?
		if [ $rc -eq 0 ] && cmp -s "$tmp/again.cu" "$out"; then ok; else bad "$name $v: second rewrite rc=$rc"; fi
	done
done
# --pad (issue #20): the samples whose shared tiles conflict, padded and
# pipelined, compile as their unpadded rewrites do and pass validate's
# static steps (the padded rows keep the wmma fragment pointers and the
# 16-byte copies aligned)
for name in matmul_column_read wmma_column_conflict; do
	src="$root/samples/$name.cu"
	out="$tmp/$name.pad.cu"
	if ! "$kpipe" rewrite --pad --variant cp-async "$src" -o "$out" 2>"$tmp/err" ||
		! grep -q '\[kpipe-padded\]' "$tmp/err"; then
		bad "$name --pad: not padded: $(head -c 300 "$tmp/err")"
		continue
	fi
	# sm_80 here, sm_90 in validate's step 1
	if kp_nvcc_arches=80 kp_nvcc_both "$out"; then ok; else
		bad "$name --pad: nvcc (sm_80) failed: $(head -c 400 "$tmp/nv")"
	fi
	"$kpipe" validate "$src" "$out" --arch sm_90 --sizes tiny >"$tmp/val" 2>&1
	if static_ok "$tmp/val" $?; then ok; else
		bad "$name --pad: validate failed"
		sed 's/^/    /' "$tmp/val" | head -20
	fi
done
# XOR swizzles (issue #20): the samples swizzled with --swizzle, the 48 KB
# tile no padding fits (transpose_wide_tile) and the 48 KB half tile of the
# ldmatrix fixture, alone and pipelined, build with no warning their
# originals do not have; the pipelined ones pass validate's static steps
for c in "transpose_shared|--pad-only --swizzle" "transpose_wide_tile|--pad-only" \
	"matmul_column_read|--pad-only --swizzle" "matmul_column_read|--pad --swizzle --variant cp-async" \
	"matmul_column_read|--pad --swizzle --variant register" "sgemm_128x128x8|--pad --swizzle --variant cp-async" \
	"../tests/cli/swizzle/ldmatrix|--pad-only"; do
	name=${c%%|*}
	args=${c#*|}
	src="$root/samples/$name.cu"
	out="$tmp/$(basename "$name").swz.cu"
	# shellcheck disable=SC2086 # the options are a list
	if ! "$kpipe" rewrite $args "$src" -o "$out" 2>"$tmp/err" || ! grep -q '\[kpipe-swizzled\]' "$tmp/err"; then
		bad "$name $args: not swizzled: $(head -c 300 "$tmp/err")"
		continue
	fi
	# sm_80 only where validate's step 1 compiles for sm_90
	case "$args" in *--variant*) arches=80 ;; *) arches="80 90" ;; esac
	kp_nvcc_arches=$arches kp_nvcc_check "$name $args" "$src" "$out"
	case "$args" in *--variant*)
		"$kpipe" validate "$src" "$out" --arch sm_90 --sizes tiny >"$tmp/val" 2>&1
		if static_ok "$tmp/val" $?; then ok; else
			bad "$name $args: validate failed"
			sed 's/^/    /' "$tmp/val" | head -20
		fi
		;;
	esac
done
# N-stage cp.async rings: each group committed per stage (LDGDEPBAR) and
# the wait at the top of the loop lets N-2 groups stay in flight
# (DEPBAR.LE SB0, N-2).
for name in matmul_32x32 sgemm_128x128x8 wmma_fp16_64x64x32 matmul_guarded int8_dp4a; do
	src="$root/samples/$name.cu"
	for n in 3 4; do
		out="$tmp/$name.s$n.cu"
		if ! "$kpipe" rewrite --stages $n "$src" -o "$out" 2>"$tmp/err"; then
			bad "$name $n stages: rewrite failed: $(head -c 300 "$tmp/err")"
			continue
		fi
		if ! "$nvcc" -arch=sm_90 -cubin -o "$tmp/s.cubin" "$out" 2>"$tmp/nv"; then
			bad "$name $n stages: nvcc failed: $(head -c 300 "$tmp/nv")"
			continue
		fi
		if "$nvcc" -arch=sm_80 -cubin -o "$tmp/s80.cubin" "$out" 2>/dev/null; then ok; else bad "$name $n stages: sm_80 build"; fi
		if [ -x "$cuobjdump" ]; then
			"$cuobjdump" -sass "$tmp/s.cubin" >"$tmp/s.sass"
			if grep -q "DEPBAR.LE SB0, 0x$((n - 2))" "$tmp/s.sass" && grep -q LDGDEPBAR "$tmp/s.sass"; then ok; else bad "$name $n stages: no DEPBAR.LE SB0, 0x$((n - 2)) / LDGDEPBAR in SASS"; fi
		fi
		"$kpipe" validate "$src" "$out" --arch sm_90 --sizes tiny >"$tmp/val" 2>&1
		if static_ok "$tmp/val" $?; then ok; else
			bad "$name $n stages: validate failed"
			sed 's/^/    /' "$tmp/val" | head -20
		fi
	done
done
kp_summary
