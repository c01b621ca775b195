#!/usr/bin/env bash
# auto_ptxas.sh - --variant auto asks ptxas about compute-heavy loops
# (compute/load >= 20 FLOP/B, src/plan/auto.c): with nvcc, int8_dp4a
# (40 registers, 48 resident warps per SM) is left alone with the remark
# kpipe-no-predicted-gain, sgemm_128x128x8 (16 warps) and sgemm_at_bulk (32) are pipelined and say
# what ptxas gave; --no-ptxas and KPIPE_NO_PTXAS=1 decide from the source
# and say the choice is a guess; --variant NAME is never second-guessed;
# register staging is compiled and its resident warps compared (also for a
# kernel template in a project header); ptxas's budget per file; a loop
# whose compute work is not counted, and padded tiles without cp.async at
# 32 warps, left alone.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
unset KPIPE_NO_PTXAS
kp_tmpdir auto-ptxas

s="$root/samples"
"$kpipe" rewrite "$s/int8_dp4a.cu" -o "$tmp/int8.cu" 2>"$tmp/int8.err"
check "int8_dp4a: kpipe-no-predicted-gain remark" grep -q 'remark: no gain predicted: .*ptxas gives the kernel 40 registers, 48 resident warps.*\[kpipe-no-predicted-gain\]' "$tmp/int8.err"
check "int8_dp4a: no warning" bash -c "! grep -q warning: '$tmp/int8.err'"
check "int8_dp4a: loop left alone" bash -c "! grep -q 'kp_stage\|kp_reg' '$tmp/int8.cu' 2>/dev/null"

"$kpipe" rewrite --no-ptxas "$s/int8_dp4a.cu" -o "$tmp/int8-guess.cu" 2>"$tmp/int8-guess.err"
check "int8_dp4a --no-ptxas: pipelined" grep -q 'kp_reg' "$tmp/int8-guess.cu"
check "int8_dp4a --no-ptxas: says it is a guess" grep -q 'a guess: compute/load is 31.5 FLOP/B' "$tmp/int8-guess.cu"
KPIPE_NO_PTXAS=1 "$kpipe" analyze "$s/int8_dp4a.cu" >"$tmp/int8-env.txt" 2>&1
check "KPIPE_NO_PTXAS=1: a guess" grep -q 'plan: register-2bar.*a guess' "$tmp/int8-env.txt"

"$kpipe" rewrite --variant register "$s/int8_dp4a.cu" -o "$tmp/int8-forced.cu" 2>/dev/null
check "int8_dp4a --variant register: pipelined" grep -q 'kp_reg' "$tmp/int8-forced.cu"

"$kpipe" rewrite "$s/sgemm_128x128x8.cu" -o "$tmp/sgemm.cu" 2>"$tmp/sgemm.err"
check "sgemm_128x128x8: pipelined with ptxas's count" grep -q 'ptxas: [0-9]* registers, 16 resident warps per SM (< 48)' "$tmp/sgemm.cu"
# one 1024-thread block per SM (32 warps) is not busy: sgemm_at_bulk gained
# 1.393x with register-2bar on the H200, which the old threshold (32) left alone
"$kpipe" rewrite "$root/samples/sgemm_at_bulk.cu" -o "$tmp/atb.cu" 2>"$tmp/atb.err"
check "sgemm_at_bulk: 32 warps, pipelined" grep -q 'ptxas: [0-9]* registers, 32 resident warps per SM (< 48)' "$tmp/atb.cu"
"$kpipe" analyze --format json "$s/sgemm_128x128x8.cu" >"$tmp/sgemm.json" 2>/dev/null
check "analyze json: register-2bar" python3 -c "
import json,sys
d=json.load(open('$tmp/sgemm.json'))
p=d['files'][0]['kernels'][0]['loops'][0]['plan']
sys.exit(0 if p['variant']=='register-2bar' and 'ptxas' in p['why'] else 1)"

# register staging is checked by ptxas on the rewrite (a halved count of
# resident warps takes cp.async; unit-tested in test_plan.c), also for a
# kernel template in a project header, which no file compiles alone: the
# probe compiles the header with the runner's instantiation
cp -r "$root/tests/fixtures/headers/proj" "$tmp/proj"
(cd "$tmp/proj" && "$kpipe" rewrite src/runner.cu -i 2>"$tmp/proj.err")
check "header template: ptxas on original and rewrite" grep -q 'register staging, 2 buffers: .*; ptxas: [0-9]* -> [0-9]* registers, [0-9]* -> [0-9]* resident warps per SM' "$tmp/proj/src/kernels/tiled.cuh"

# register staging that halves the resident warps where cp.async does not
# apply leaves the loop alone; a template's instantiations are paired by
# name and the one that loses most decides (matmul_staged_loader: the
# `double` instantiation, listed first, keeps 32 warps; `float` goes from
# 64 to 32; every register variant measured 0.926x-0.939x on the H200)
"$kpipe" rewrite "$s/matmul_staged_loader.cu" -o "$tmp/staged.cu" 2>"$tmp/staged.err"
check "matmul_staged_loader: no gain predicted, the float instantiation's warps" grep -q 'no gain predicted: register would halve the resident warps (ptxas: 32 -> 40 registers, 64 -> 32 warps per SM at 1024 threads), and cp.async.*does not apply.*\[kpipe-no-predicted-gain\]' "$tmp/staged.err"
check "matmul_staged_loader: loop left alone" bash -c "! grep -q 'kp_stage\|kp_reg' '$tmp/staged.cu' 2>/dev/null"
"$kpipe" rewrite --variant register "$s/matmul_staged_loader.cu" -o "$tmp/staged-forced.cu" 2>/dev/null
check "matmul_staged_loader --variant register: pipelined" grep -q 'kp_reg' "$tmp/staged-forced.cu"
# ptxas's budget (src/validate/probe.h): a file of more than 64 kernels is
# not compiled (100 kernels took 8 minutes of CPU when every loop's
# rewrite was), and at most 8 rewrites of one file are; past it, auto says
# what was not checked
kp_gen_kernels 65 >"$tmp/k65.cu"
t0=$(date +%s)
"$kpipe" rewrite "$tmp/k65.cu" -o "$tmp/k65.out.cu" 2>/dev/null
t1=$(date +%s)
check "65 kernels: every loop pipelined" test "$(grep -c 'kp_stage ^= 1' "$tmp/k65.out.cu")" = 65
check "65 kernels: ptxas not asked, and said" grep -q 'the file has 65 kernels and ptxas is asked only about files of up to 64' "$tmp/k65.out.cu"
check "65 kernels: no nvcc time (took $((t1 - t0)) s)" test $((t1 - t0)) -lt 60
kp_gen_kernels 10 >"$tmp/k10.cu"
"$kpipe" rewrite "$tmp/k10.cu" -o "$tmp/k10.out.cu" 2>/dev/null
check "10 kernels: 8 rewrites checked by ptxas" test "$(grep -c 'ptxas: 3[0-9] -> 3[0-9] registers' "$tmp/k10.out.cu")" = 8
check "10 kernels: the last 2 say the budget is spent" test "$(grep -c 'already asked about 8 rewrites of this file' "$tmp/k10.out.cu")" = 2

# a compute phase whose work kpipe does not count (a compute loop to
# min(16, K - k0)) at 64 resident warps: left alone (H100: every variant
# 0.872x-0.970x); with --no-ptxas the choice stands, without a note
"$kpipe" rewrite "$root/tests/cpudiff/kernels/matmul_ragged.cu" -o "$tmp/ragged.cu" 2>"$tmp/ragged.err"
check "matmul_ragged: work not counted, left alone" grep -q "compute phase's work is not counted (a loop of it runs a number of times known only at run time).*64 resident warps.*\[kpipe-no-predicted-gain\]" "$tmp/ragged.err"
check "matmul_ragged: nothing rewritten" cmp -s "$root/tests/cpudiff/kernels/matmul_ragged.cu" "$tmp/ragged.cu"
"$kpipe" rewrite --no-ptxas "$root/tests/cpudiff/kernels/matmul_ragged.cu" -o "$tmp/ragged-np.cu" 2>/dev/null
check "matmul_ragged --no-ptxas: pipelined" grep -q 'kp_reg' "$tmp/ragged-np.cu"
# padded compute-heavy tiles without cp.async at 32 warps: the padded
# original (H200: 2.778x against padded register staging's 2.205x); the
# rewrite plans on the padded text, where the pad pass's lines say what
# it padded
"$kpipe" rewrite "$s/wmma_bulk_half.cu" -o "$tmp/wbh.cu" 2>"$tmp/wbh.err"
check "wmma_bulk_half: padded, left alone" grep -q 'is padded, and ptxas gives the kernel [0-9]* registers, 32 resident warps.*\[kpipe-no-predicted-gain\]' "$tmp/wbh.err"
check "wmma_bulk_half: the tiles padded" grep -q 'WB_BM + 8\]' "$tmp/wbh.cu"
check "wmma_bulk_half: not pipelined" bash -c "! grep -q 'kp_reg\|kp_stage' '$tmp/wbh.cu'"
"$kpipe" rewrite --no-pad "$s/wmma_bulk_half.cu" -o "$tmp/wbh-np.cu" 2>/dev/null
check "wmma_bulk_half --no-pad: pipelined (32 < 48 warps)" grep -q 'kp_reg' "$tmp/wbh-np.cu"

kp_summary auto_ptxas
