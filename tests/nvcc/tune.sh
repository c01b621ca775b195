#!/usr/bin/env bash
# tune.sh - `kpipe tune` on a machine without a GPU: it must say it cannot
# tune and write exactly what `rewrite --variant auto` writes (exit 6);
# with --gpu-dir it still builds and validates every variant (one that
# does not compile is not built into the harness; one whose SASS shows no
# overlap is), and the usage errors and refusals.  On a machine with a
# GPU the GPU part is tests/gpu/tune.sh.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
kp_tmpdir nvcc-tune
has_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	has_gpu=1
fi
for f in matmul_32x32 sgemm_128x128x8 refused_smem_carry; do
	cp "$root/samples/$f.cu" "$root/samples/$f.launch.json" "$tmp/"
done

if [ $has_gpu = 0 ]; then
	# 1. no GPU: fall back to --variant auto, exit 6, say why
	"$kpipe" tune "$tmp/matmul_32x32.cu" -o "$tmp/t.cu" >"$tmp/o1" 2>"$tmp/e1"
	rc=$?
	"$kpipe" rewrite "$tmp/matmul_32x32.cu" -o "$tmp/auto.cu"
	check "no GPU: exit 6 (got $rc)" test $rc = 6
	check "no GPU: says it cannot tune" grep -q "cannot tune: no CUDA device" "$tmp/e1"
	check "no GPU: writes the auto rewrite" cmp -s "$tmp/t.cu" "$tmp/auto.cu"
	# stdout default: the code on stdout
	"$kpipe" tune "$tmp/matmul_32x32.cu" >"$tmp/t2.cu" 2>/dev/null
	check "no GPU, no -o: the auto rewrite on stdout" cmp -s "$tmp/t2.cu" "$tmp/auto.cu"

	# 2. --gpu-dir: every variant built and validated, harness built
	"$kpipe" tune "$tmp/sgemm_128x128x8.cu" -o "$tmp/s.cu" --gpu-dir "$tmp/gd" -v >"$tmp/o2" 2>"$tmp/e2"
	rc=$?
	check "--gpu-dir without GPU: exit 6 (got $rc)" test $rc = 6
	for v in register register-ca register-2bar cp-async cp-async-s3 cp-async-s4; do
		check "--gpu-dir: $v.cu written" test -s "$tmp/gd/$v.cu"
	done
	# a variant is built into the harness exactly when it compiled (step 1);
	# the SASS verdict (step 2) is shown, and timed either way
	for v in register register-ca register-2bar cp-async cp-async-s3 cp-async-s4; do
		if grep -qE "^kpipe tune: $v: step 1 PASSED(, step 2 PASSED|; SASS overlap: FAILED .*, timed anyway)" "$tmp/e2"; then
			check "--gpu-dir: $v compiled: $v.so built" test -s "$tmp/gd/$v.so"
		else
			check "--gpu-dir: $v's failed step is named" grep -q "^kpipe tune: $v: step 1 " "$tmp/e2"
			check "--gpu-dir: $v did not compile: not built" test ! -e "$tmp/gd/$v.so"
		fi
	done
	check "--gpu-dir: original.so built" test -s "$tmp/gd/original.so"
	check "--gpu-dir: the cp.async variants passed" grep -q "^kpipe tune: cp-async-s4: step 1 PASSED, step 2 PASSED" "$tmp/e2"
	check "--gpu-dir: harness built" test -x "$tmp/gd/harness"
	check "--gpu-dir: the harness's own error is reported" grep -q "cannot tune: the harness failed" "$tmp/e2"
	for v in cp-async-s3 cp-async-s4; do
		"$kpipe" rewrite --variant cp-async --stages "${v#cp-async-s}" "$tmp/sgemm_128x128x8.cu" -o "$tmp/ref.cu"
		check "--gpu-dir: $v.cu is rewrite --stages ${v#cp-async-s}" cmp -s "$tmp/gd/$v.cu" "$tmp/ref.cu"
	done

	# 3. no launch description: fall back too
	cp "$tmp/matmul_32x32.cu" "$tmp/nospec.cu"
	"$kpipe" tune "$tmp/nospec.cu" -o "$tmp/n.cu" >/dev/null 2>"$tmp/e3"
	rc=$?
	check "no launch description: exit 6 (got $rc)" test $rc = 6
	check "no launch description: says so" grep -q "no launch description" "$tmp/e3"
else
	echo "SKIP: this machine has a GPU: the fallback checks do not apply (tests/gpu/tune.sh runs)"
fi

# 4. nothing to pipeline: exit 0, the original written unchanged, every
# variant's reason
"$kpipe" tune "$tmp/refused_smem_carry.cu" -o "$tmp/r.cu" >/dev/null 2>"$tmp/e4"
rc=$?
check "refused: exit 0 (got $rc)" test $rc = 0
check "refused: the original written unchanged" cmp -s "$tmp/r.cu" "$tmp/refused_smem_carry.cu"
check "refused: the reason" grep -q "kpipe-smem-carried" "$tmp/e4"

# 5. usage errors
"$kpipe" tune "$tmp/matmul_32x32.cu" "$tmp/sgemm_128x128x8.cu" >/dev/null 2>&1
check "two files: exit 2" test $? = 2
"$kpipe" tune "$tmp/matmul_32x32.cu" -o "$tmp/x.cu" -i >/dev/null 2>&1
check "-o with -i: exit 2" test $? = 2
"$kpipe" tune "$tmp/matmul_32x32.cu" --format json >/dev/null 2>&1
check "--format json without -o: exit 2" test $? = 2
"$kpipe" tune "$tmp/matmul_32x32.cu" --variant register >/dev/null 2>&1
check "--variant is not a tune option: exit 2" test $? = 2
"$kpipe" tune "$tmp/missing.cu" -o "$tmp/x.cu" >/dev/null 2>&1
check "missing input: exit 3" test $? = 3
check "usage errors wrote nothing" test ! -e "$tmp/x.cu"

kp_summary tune
