#!/usr/bin/env bash
# no_new_warnings.sh - a rewrite adds no compiler warning (issue 33): the
# register-staging rewrite of tests/cpudiff/kernels/multi_decl_locals.cu,
# whose load phase declares two locals in one statement (`int gi = ...,
# si = ...;`, one used by the fetch, the other by the store), compiles for
# sm_80 and sm_90 with no warning the original lacks (nvcc used to say
# `variable "si" was declared but never referenced` for the fetch copy and
# the same of "gi" for the store copy); cp.async too.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
kp_tmpdir nvcc-warnings
src="$root/tests/cpudiff/kernels/multi_decl_locals.cu"
for v in register cp-async; do
	KPIPE_NO_PTXAS=1 "$kpipe" rewrite --variant "$v" --no-verify "$src" -o "$tmp/$v.cu" 2>"$tmp/err"
	check "$v: rewritten" test $? -eq 0
	kp_nvcc_check "$v" "$src" "$tmp/$v.cu"
	check "$v: no 'declared but never referenced'" sh -c "! grep -q 'never referenced' '$tmp/nv'"
done
kp_summary no_new_warnings
