#!/usr/bin/env bash
# verify.sh - every rewrite run against its original on the CPU emulator
# before it is written (docs/verify.md):
#   (a) a correct rewrite of a sample is verified: written, no warning, and
#       written with --require-verify too (an unverified one would be
#       refused there);
#   (b) a wrong one is caught: tests/cli/verify/dup_copy.cu, two copies into
#       the same tile element in one load phase, which kpipe once turned
#       into two unordered cp.async copies (dup_copy.wrong.cu, that build's
#       output).  kpipe refuses the async forms for it now, so the wrong
#       text is handed to the verifier through its test hook
#       (KPIPE_VERIFY_SUBSTITUTE) in place of the register rewrite:
#       kpipe-verify-failed naming the launch and the first mismatch, the
#       file unchanged with -o, -i and --out-dir (a batch whose other file
#       is rewritten);
#   (c) --no-verify writes that rewrite (the check is skipped);
#   (d) a kernel kpipe cannot launch (no launch description, no launch, no
#       __launch_bounds__): kpipe-unverified with the reason and the
#       rewrite written; --require-verify refuses it;
#   (e) kpipe's own launches for a file without a launch description: the
#       wrong rewrite of (b) with a host launcher caught, a sample's
#       correct rewrite verified.
#   (f) double buffers and scalars (issue 31): samples/dgemm_tiled.cu's
#       rewrites verified with --require-verify (each variant); two wrong
#       ones caught: 4-byte copies of the double tiles (dgemm_tiled.wrong.cu)
#       and products rounded to float (dgemm_tiled.fp32acc.wrong.cu, only a
#       comparison of the dumps as doubles sees it);
#   (g) kpipe's own launches of a double kernel (dgemm_launched.cu, no
#       launch description): verified, and its wrong rewrite caught.
#   (h) complex buffers and scalars (double2, which cuDoubleComplex and
#       MAGMA's magmaDoubleComplex are): the CPU checker's kernel
#       tests/cpudiff/kernels/zgemm_like.cu with its launch
#       description, each variant verified; its rewrite with 8-byte copies
#       of the next tiles (only the real lanes prefetched) caught; and
#       zgemm_launched.cu without one, whose `zcomplex` typedef kpipe's own
#       launch fills by its canonical type: verified, the wrong one caught.
# Verification needs g++: without it the test is skipped (exit 77).
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
command -v "${KPIPE_VERIFY_CXX:-g++}" >/dev/null || {
	echo "SKIP: no g++"
	exit 77
}
kp_tmpdir verify
cd "$root" || exit 1
dup=tests/cli/verify/dup_copy.cu
wrong="$root/tests/cli/verify/dup_copy.wrong.cu"
same() { cmp -s "$1" "$2"; }

# (a) a correct rewrite, verified
"$kpipe" rewrite --variant cp-async samples/matmul_32x32.cu -o "$tmp/m.cu" 2>"$tmp/err"
check "(a) exit 0" test $? -eq 0
check "(a) pipelined" grep -q __pipeline_memcpy_async "$tmp/m.cu"
check "(a) no verification warning" sh -c "! grep -q 'kpipe-verify-failed\|kpipe-unverified' '$tmp/err'"
"$kpipe" rewrite --require-verify --variant register samples/matmul_guarded.cu -o "$tmp/g.cu" 2>"$tmp/err"
check "(a) --require-verify: a verified rewrite is written" grep -q kp_reg "$tmp/g.cu"
check "(a) --require-verify: no warning" test ! -s "$tmp/err"

# (b) a wrong rewrite, caught
msg="^$dup:15:5: warning: the rewrite differs from the original on the CPU emulator: kernel dup_copy, size tiny (N=16 K=16): 1 blocks, 256 threads, .*: C\[0\]: expected [-0-9.e]*, got [-0-9.e]* ([0-9]* of 256 elements differ); nothing was rewritten (docs/verify.md) \[kpipe-verify-failed\]\$"
KPIPE_VERIFY_SUBSTITUTE="$wrong" "$kpipe" rewrite --variant register "$dup" -o "$tmp/d.cu" 2>"$tmp/err"
check "(b) -o: exit 0 (nothing pipelined)" test $? -eq 0
check "(b) -o: the input unchanged" same "$tmp/d.cu" "$dup"
check "(b) -o: kpipe-verify-failed with the launch and the first mismatch" grep -q "$msg" "$tmp/err"
check "(b) -o: one diagnostic" test "$(wc -l <"$tmp/err")" -eq 1
KPIPE_VERIFY_SUBSTITUTE="$wrong" "$kpipe" rewrite --variant register "$dup" --Werror -o "$tmp/d.cu" 2>/dev/null
check "(b) --Werror: exit 1" test $? -eq 1
# the loop's verdict in the JSON report: refused with the verifier's id
KPIPE_VERIFY_SUBSTITUTE="$wrong" "$kpipe" rewrite --variant register --format json "$dup" -o "$tmp/d.cu" >"$tmp/dj" 2>/dev/null
check "(b) json: the loop's verdict is the refusal" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["files"][0]["verdicts"]
assert len(v) == 1 and v[0]["eligible"] and not v[0]["pipelined"] and v[0]["variant"] is None, v
assert v[0]["reasons"] == ["kpipe-verify-failed"] and v[0]["line"] == 15, v' "$tmp/dj"
mkdir -p "$tmp/in"
cp "$dup" tests/cli/verify/dup_copy.launch.json "$tmp/in/"
cp "$tmp/in/dup_copy.cu" "$tmp/dup_orig.cu"
KPIPE_VERIFY_SUBSTITUTE="$wrong" "$kpipe" rewrite --variant register -i "$tmp/in/dup_copy.cu" 2>"$tmp/err"
check "(b) -i: the file untouched" same "$tmp/in/dup_copy.cu" "$tmp/dup_orig.cu"
check "(b) -i: kpipe-verify-failed" grep -q "kpipe-verify-failed" "$tmp/err"
cp samples/matmul_32x32.cu samples/matmul_32x32.launch.json "$tmp/in/"
KPIPE_VERIFY_SUBSTITUTE="$wrong" "$kpipe" rewrite --variant register "$tmp/in" --out-dir "$tmp/out" -j 1 >"$tmp/bout" 2>"$tmp/err"
check "(b) batch: the wrong rewrite not written" same "$tmp/out/dup_copy.cu" "$tmp/dup_orig.cu"
check "(b) batch: the other file pipelined" grep -q kp_stage "$tmp/out/matmul_32x32.cu"
check "(b) batch: kpipe-verify-failed" grep -q "dup_copy.cu:15:5: warning: .*\[kpipe-verify-failed\]" "$tmp/err"

# (c) --no-verify: the check skipped, the (wrong) rewrite written
KPIPE_VERIFY_SUBSTITUTE="$wrong" "$kpipe" rewrite --no-verify --variant register "$dup" -o "$tmp/nv.cu" 2>"$tmp/err"
check "(c) --no-verify: written" grep -q __pipeline_memcpy_async "$tmp/nv.cu"
check "(c) --no-verify: no warning" test ! -s "$tmp/err"
"$kpipe" rewrite --no-verify --require-verify "$dup" -o "$tmp/x.cu" 2>"$tmp/err"
check "(c) --no-verify --require-verify: a usage error" test $? -eq 2

# (d) no launch description and no launch: unverified, written; refused with --require-verify
nl=tests/cli/verify/no_launch.cu
"$kpipe" rewrite --variant cp-async "$nl" -o "$tmp/u.cu" 2>"$tmp/err"
check "(d) written" grep -q __pipeline_memcpy_async "$tmp/u.cu"
check "(d) kpipe-unverified with the reason" grep -q "^$nl:12:5: warning: the rewrite was not verified on the CPU emulator: no launch description, and kpipe cannot launch kernel no_launch itself: no block shape: .*\[kpipe-unverified\]" "$tmp/err"
"$kpipe" rewrite --require-verify --variant cp-async "$nl" -o "$tmp/u.cu" 2>"$tmp/err"
check "(d) --require-verify: refused, the input unchanged" same "$tmp/u.cu" "$nl"
check "(d) --require-verify: kpipe-unverified" grep -q "cannot be verified on the CPU emulator: no launch description.*(--require-verify) \[kpipe-unverified\]" "$tmp/err"

# (e) kpipe's own launches (no launch description; the block from the
# file's <<<>>>): the wrong rewrite caught, a correct one verified
dl=tests/cli/verify/dup_copy_launched.cu
KPIPE_VERIFY_SUBSTITUTE="$root/tests/cli/verify/dup_copy_launched.wrong.cu" \
	"$kpipe" rewrite --variant register "$dl" -o "$tmp/e.cu" 2>"$tmp/err"
check "(e) own launches: the input unchanged" same "$tmp/e.cu" "$dl"
check "(e) own launches: kpipe-verify-failed, the launch kpipe's" grep -q "^$dl:15:5: warning: the rewrite differs from the original on the CPU emulator: kernel dup_copy, kpipe's own launch (no launch description) with every integer parameter V, size [a-z]* (V=[0-9]*): 4 blocks, 1024 threads, .*: C\[[0-9]*\]: expected .*\[kpipe-verify-failed\]" "$tmp/err"
mkdir -p "$tmp/own"
cp samples/matmul_32x32.cu "$tmp/own/k.cu"
"$kpipe" rewrite --require-verify --variant cp-async "$tmp/own/k.cu" -o "$tmp/k.cu" 2>"$tmp/err"
check "(e) own launches: a correct rewrite verified and written" grep -q __pipeline_memcpy_async "$tmp/k.cu"
check "(e) own launches: no warning" test ! -s "$tmp/err"

# (f) double: the sample's rewrites verified, two wrong ones caught
dg=samples/dgemm_tiled.cu
for v in cp-async register register-ca register-2bar; do
	"$kpipe" rewrite --require-verify --variant "$v" "$dg" -o "$tmp/dg.$v.cu" 2>"$tmp/err"
	check "(f) double $v: verified and written" grep -q kp_stage "$tmp/dg.$v.cu"
	check "(f) double $v: no warning" test ! -s "$tmp/err"
done
for w in dgemm_tiled.wrong.cu dgemm_tiled.fp32acc.wrong.cu; do
	KPIPE_VERIFY_SUBSTITUTE="$root/tests/cli/verify/$w" \
		"$kpipe" rewrite --variant cp-async "$dg" -o "$tmp/dgw.cu" 2>"$tmp/err"
	check "(f) double $w: the input unchanged" same "$tmp/dgw.cu" "$dg"
	check "(f) double $w: kpipe-verify-failed" grep -q "^$dg:32:5: warning: the rewrite differs from the original on the CPU emulator: kernel dgemm_tiled, size [a-z]* (M=.*: C\[[0-9]*\]: expected .*\[kpipe-verify-failed\]" "$tmp/err"
done

# (g) kpipe's own launches of a double kernel: verified; the wrong one caught
dl=tests/cli/verify/dgemm_launched.cu
"$kpipe" rewrite --require-verify --variant cp-async "$dl" -o "$tmp/dl.cu" 2>"$tmp/err"
check "(g) own launches, double: verified and written" grep -q __pipeline_memcpy_async "$tmp/dl.cu"
check "(g) own launches, double: no warning" test ! -s "$tmp/err"
KPIPE_VERIFY_SUBSTITUTE="$root/tests/cli/verify/dgemm_launched.wrong.cu" \
	"$kpipe" rewrite --variant cp-async "$dl" -o "$tmp/dlw.cu" 2>"$tmp/err"
check "(g) own launches, double: the wrong rewrite not written" same "$tmp/dlw.cu" "$dl"
check "(g) own launches, double: kpipe-verify-failed" grep -q "^$dl:18:5: warning: the rewrite differs .*kernel dgemm_launched, kpipe's own launch (no launch description).*\[kpipe-verify-failed\]" "$tmp/err"

# (h) complex (double2) buffers and scalars, with and without a description
zg=tests/cpudiff/kernels/zgemm_like.cu
for v in cp-async register register-ca register-2bar; do
	"$kpipe" rewrite --require-verify --variant "$v" "$zg" -o "$tmp/zg.$v.cu" 2>"$tmp/err"
	check "(h) complex $v: verified and written" grep -q kp_stage "$tmp/zg.$v.cu"
	check "(h) complex $v: no warning" test ! -s "$tmp/err"
done
KPIPE_VERIFY_SUBSTITUTE="$root/tests/cli/verify/zgemm_like.wrong.cu" \
	"$kpipe" rewrite --variant cp-async "$zg" -o "$tmp/zgw.cu" 2>"$tmp/err"
check "(h) complex, 8-byte copies: the input unchanged" same "$tmp/zgw.cu" "$zg"
check "(h) complex, 8-byte copies: kpipe-verify-failed" grep -q "^$zg:34:5: warning: the rewrite differs from the original on the CPU emulator: kernel zgemm_like, size [a-z]* (M=.*: C\[[0-9]*\]: expected .*\[kpipe-verify-failed\]" "$tmp/err"
zl=tests/cli/verify/zgemm_launched.cu
"$kpipe" rewrite --require-verify --variant cp-async "$zl" -o "$tmp/zl.cu" 2>"$tmp/err"
check "(h) own launches, complex typedef: verified and written" grep -q __pipeline_memcpy_async "$tmp/zl.cu"
check "(h) own launches, complex typedef: no warning" test ! -s "$tmp/err"
KPIPE_VERIFY_SUBSTITUTE="$root/tests/cli/verify/zgemm_launched.wrong.cu" \
	"$kpipe" rewrite --variant cp-async "$zl" -o "$tmp/zlw.cu" 2>"$tmp/err"
check "(h) own launches, complex typedef: the wrong rewrite not written" same "$tmp/zlw.cu" "$zl"
check "(h) own launches, complex typedef: kpipe-verify-failed" grep -q "^$zl:24:5: warning: the rewrite differs .*kernel zgemm_launched, kpipe's own launch (no launch description).*\[kpipe-verify-failed\]" "$tmp/err"

kp_summary verify
