#!/usr/bin/env bash
# cpasync_experiment.sh - bench/cpasync_experiment.py and bench/sass_loops.py,
# the measurement tools of docs/benchmarks.md ("Why the authors' cp.async
# loops are faster"), on kpipe's own cp.async output of
# samples/sgemm_float4_macro.cu (four 16-byte copies, a comment that
# spells __pipeline_memcpy_async):
#   - l2 and sbase: every copy becomes cp.async.cg...L2::128B in the PTX,
#     cg the same without the hint, none is left as __pipeline_memcpy_async
#     but the comment's; sbase converts the shared addresses before the
#     loop (kp_sa_N) and nowhere in it;
#   - l2+peel composes with bench/peel_experiment.py, mb4 puts
#     `.minnctapersm 4` on the kernel; every output builds;
#   - 4-byte copies (samples/matmul_32x32.cu) are refused, not guessed;
#   - sass_loops.py finds the loop of tests/fixtures/sass/cp_async.sass with
#     its two LDGSTS.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
kp_tmpdir nvcc-cpasync-experiment
x="$root/bench/cpasync_experiment.py"

"$kpipe" rewrite --variant cp-async --no-verify "$root/samples/sgemm_float4_macro.cu" \
	-o "$tmp/kp.cu" 2>"$tmp/err" || { bad "kpipe rewrite: $(head -3 "$tmp/err")"; kp_summary cpasync_experiment; exit 1; }
copies=$(grep -v '^ *//' "$tmp/kp.cu" | grep -c '__pipeline_memcpy_async(')
check "kpipe's output has 16-byte copies" [ "$copies" -ge 2 ]

ptx() { # FILE: its PTX for sm_90 in FILE.ptx
	kp_nvcc_cached -arch=sm_90 -ptx -o "$1.ptx" "$1" 2>"$tmp/nv" || { bad "$1: nvcc: $(head -c 300 "$tmp/nv")"; return 1; }
}
for mode in l2 cg sbase sbase-cg l2+peel; do
	out="$tmp/$mode.cu"
	if ! python3 "$x" "$mode" "$tmp/kp.cu" "$out" 2>"$tmp/err"; then
		bad "$mode: $(cat "$tmp/err")"
		continue
	fi
	ptx "$out" || continue
	hinted=$(grep -c 'cp.async.cg.shared.global.L2::128B' "$out.ptx")
	plain=$(grep -c 'cp.async.cg.shared.global ' "$out.ptx")
	case "$mode" in
	cg | sbase-cg) check "$mode: $copies plain .cg copies (PTX: $plain, hinted $hinted)" [ "$plain" = "$copies" ] && [ "$hinted" = 0 ] ;;
	*) check "$mode: $copies hinted copies (PTX: $hinted, plain $plain)" [ "$hinted" = "$copies" ] && [ "$plain" = 0 ] ;;
	esac
	left=$(grep -v '^ *//' "$out" | grep -c '__pipeline_memcpy_async(')
	check "$mode: no __pipeline_memcpy_async left ($left)" [ "$left" = 0 ]
done
# sbase: the conversions before kpipe's block, the copies add the stage
check "sbase: shared addresses converted before the loop" \
	[ "$(grep -c 'const unsigned kp_sa_[0-9]* = (unsigned)__cvta_generic_to_shared' "$tmp/sbase.cu")" -ge 1 ]
check "sbase: every copy from a hoisted address" \
	[ "$(grep -c 'kp_cp_async16(kp_sa_[0-9]* + ' "$tmp/sbase.cu")" = "$copies" ]
check "l2+peel: peeled" grep -q 'peeled by bench/peel_experiment.py' "$tmp/l2+peel.cu"
if python3 "$x" mb4 "$tmp/kp.cu" "$tmp/mb4.cu" sgemm_float4_macro 2>"$tmp/err" && ptx "$tmp/mb4.cu"; then
	check "mb4: .minnctapersm 4" grep -q 'minnctapersm 4' "$tmp/mb4.cu.ptx"
else
	bad "mb4: $(cat "$tmp/err")"
fi
python3 "$x" mb4 "$tmp/kp.cu" "$tmp/mb4b.cu" 2>"$tmp/err"
check "mb4 without the kernel's name is refused" [ $? = 1 ]

# 4-byte copies: refused with the reason
"$kpipe" rewrite --variant cp-async --no-verify "$root/samples/matmul_32x32.cu" -o "$tmp/m32.cu" 2>/dev/null
python3 "$x" l2 "$tmp/m32.cu" "$tmp/m32.l2.cu" 2>"$tmp/err"
rc=$?
check "4-byte copies refused (exit $rc: $(cat "$tmp/err"))" [ $rc = 1 ]
check "4-byte copies: the reason" grep -q 'other than 16 bytes' "$tmp/err"

# sass_loops.py on a fixture
out=$(python3 "$root/bench/sass_loops.py" "$root/tests/fixtures/sass/cp_async.sass" matmul)
check "sass_loops: one loop with its two LDGSTS ($out)" \
	[ "$(grep -c 'instructions;.*cp.async 2.*; LDGSTS.E' <<<"$out")" = 1 ]

kp_summary cpasync_experiment
