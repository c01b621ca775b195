#!/usr/bin/env bash
# rewrite_validate.sh - `kpipe rewrite --validate`: validates what it just
# wrote (the steps of `kpipe validate`, report on stdout).  Checks the exit
# codes (0 passed or 6 incomplete without a GPU, 4 failed), that -i puts the
# original back when the proof fails and leaves no temporary copy, that -o
# keeps its output and says it failed, and the usage errors.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
kp_tmpdir nvcc-rewrite-validate

cp "$root/samples/matmul_32x32.cu" "$root/samples/matmul_32x32.launch.json" "$tmp/"
# samples/sgemm_128x128x8.cu under __launch_bounds__(256, 3), which caps
# ptxas at 80 registers: the original already spills, and register staging
# (8 more live registers) spills more, so validate fails step 1 on it.
sed 's/__launch_bounds__(NTHREADS)/__launch_bounds__(NTHREADS, 3)/' \
	"$root/samples/sgemm_128x128x8.cu" >"$tmp/sgemm_tight_bounds.cu"
check "the tight-bounds kernel was made" grep -q "__launch_bounds__(NTHREADS, 3)" "$tmp/sgemm_tight_bounds.cu"
cp "$root/samples/sgemm_128x128x8.launch.json" "$tmp/sgemm_tight_bounds.launch.json"

# 1. -o: the output is written and validated; steps 1-2 pass, 3-5 need a GPU.
"$kpipe" rewrite "$tmp/matmul_32x32.cu" -o "$tmp/out.cu" --validate >"$tmp/v1" 2>"$tmp/e1"
rc=$?
check "-o --validate exits 0 or 6 (got $rc)" test $rc = 0 -o $rc = 6
check "-o --validate wrote the output" test -s "$tmp/out.cu"
check "step 1 passed" grep -q "^step 1  resources  PASSED" "$tmp/v1"
check "step 2 passed" grep -q "^step 2  sass       PASSED" "$tmp/v1"
check "the report names the input as the original" grep -q "matmul_32x32.cu -> .*out.cu" "$tmp/v1"
if [ $rc = 6 ]; then
	check "no GPU: step 3 skipped" grep -q "^step 3  gpu-run    SKIPPED" "$tmp/v1"
fi

# 2. -i, proof passes (or is incomplete): the file stays rewritten, backup kept.
cp "$tmp/matmul_32x32.cu" "$tmp/orig.cu"
"$kpipe" rewrite -i --backup-suffix=.orig "$tmp/matmul_32x32.cu" --validate --sizes small \
	>"$tmp/v2" 2>"$tmp/e2"
rc=$?
check "-i --validate exits 0 or 6 (got $rc)" test $rc = 0 -o $rc = 6
check "-i --validate: the file is rewritten" cmp -s "$tmp/matmul_32x32.cu" "$tmp/out.cu"
check "-i --validate: backup kept" cmp -s "$tmp/matmul_32x32.cu.orig" "$tmp/orig.cu"

# 3. -i, proof fails (register staging under a tight register cap spills
#    more): exit 4, the original is back, no temporary copy is left.
cp "$tmp/sgemm_tight_bounds.cu" "$tmp/tight_orig.cu"
"$kpipe" rewrite -i --variant register "$tmp/sgemm_tight_bounds.cu" --validate >"$tmp/v3" 2>"$tmp/e3"
rc=$?
check "-i --validate on a failing rewrite exits 4 (got $rc)" test $rc = 4
check "step 1 reports the new spills" grep -q "^step 1  resources  FAILED: .*new spills" "$tmp/v3"
check "-i: the original is restored" cmp -s "$tmp/sgemm_tight_bounds.cu" "$tmp/tight_orig.cu"
check "-i: stderr says the original is back" grep -q "is back to the original" "$tmp/e3"
check "-i: no temporary copy left" test -z "$(find "$tmp" -name '.kpipe-*')"

# 4. -o, proof fails: the output stays (the user asked for it) and exit 4 says no.
"$kpipe" rewrite --variant register "$tmp/sgemm_tight_bounds.cu" -o "$tmp/tight_out.cu" --validate \
	>"$tmp/v4" 2>"$tmp/e4"
rc=$?
check "-o --validate on a failing rewrite exits 4 (got $rc)" test $rc = 4
check "-o: output written" test -s "$tmp/tight_out.cu"
check "-o: stderr says it did not pass" grep -q "was written but did not pass" "$tmp/e4"

# 5. usage errors: nothing is written
for args in "--diff" "--dry-run" "--format json -o $tmp/u.cu" "" "-o -"; do
	# shellcheck disable=SC2086
	"$kpipe" rewrite "$tmp/orig.cu" --validate $args >/dev/null 2>"$tmp/eu"
	rc=$?
	check "--validate $args is a usage error (got $rc)" test $rc = 2
	check "--validate $args explains itself" grep -q "validate" "$tmp/eu"
done
"$kpipe" rewrite - --validate <"$tmp/orig.cu" >/dev/null 2>&1
check "--validate from stdin is a usage error" test $? = 2
"$kpipe" rewrite "$tmp/orig.cu" -o "$tmp/u.cu" --sanitize >/dev/null 2>&1
check "--sanitize without --validate is a usage error" test $? = 2
check "usage errors wrote nothing" test ! -e "$tmp/u.cu"

kp_summary rewrite_validate
