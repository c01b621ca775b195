#!/usr/bin/env bash
# probe_pair.sh - ptxas asked about the original and its rewrite in one
# nvcc run (src/validate/probe.c, "one compilation for both"; docs/
# building.md "The probe cache"):
#   - with the pair (the default) and without it (KPIPE_PROBE_PAIR=off,
#     one nvcc run each), analyze and rewrite --no-verify print and write
#     the same, byte for byte: the registers, warps and decisions are the
#     two compilations';
#   - with the pair, nvcc runs once where it ran twice (counted through a
#     CUDA folder whose bin/nvcc logs each run): a plain kernel, a kernel
#     template (its instantiations referenced for the copy), an extern "C"
#     kernel, a file of several kernels;
#   - a kernel declared before its definition (the declaration may carry
#     __launch_bounds__ the copy would not) is compiled twice, as before.
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
unset KPIPE_NO_PTXAS
kp_tmpdir probe-pair
export KPIPE_CACHE_DIR=off # every question asked of nvcc, none read back

# a CUDA folder whose nvcc counts its runs and runs the real one
real="$(readlink -f "$nvcc")"
croot="$(dirname "$(dirname "$real")")"
cuda="$tmp/cuda"
mkdir -p "$cuda/bin"
for e in "$croot"/*; do [ "$(basename "$e")" = bin ] || ln -s "$e" "$cuda/"; done
for e in "$croot"/bin/*; do [ "$(basename "$e")" = nvcc ] || ln -s "$e" "$cuda/bin/"; done
printf '#!/bin/sh\necho run >>"%s/nvcc.log"\nexec "%s" "$@"\n' "$tmp" "$real" >"$cuda/bin/nvcc"
chmod +x "$cuda/bin/nvcc"

mkdir -p "$tmp/src"
cp "$root/samples/sgemm_128x128x8.cu" "$root/samples/matmul_template.cu" \
	"$root/samples/multi_kernel_macros.cu" "$tmp/src/"
sed 's/^__global__ void __launch_bounds__(NTHREADS)$/extern "C" &/' \
	"$root/samples/sgemm_128x128x8.cu" >"$tmp/src/sgemm_extern_c.cu"
check "the extern \"C\" fixture was made" grep -q '^extern "C" __global__' "$tmp/src/sgemm_extern_c.cu"
sed 's/^__global__ void __launch_bounds__(NTHREADS)$/__global__ void sgemm_128x128x8(const float *, const float *, float *, int, int, int);\n&/' \
	"$root/samples/sgemm_128x128x8.cu" >"$tmp/src/sgemm_declared.cu"
check "the declared fixture was made" grep -q '^__global__ void sgemm_128x128x8(const float \*,' "$tmp/src/sgemm_declared.cu"

# runs CMD... with pair MODE; prints how many times nvcc ran
runs() {
	local mode="$1"
	shift
	rm -f "$tmp/nvcc.log"
	KPIPE_PROBE_PAIR="$mode" "$@" >/dev/null 2>&1
	if [ -f "$tmp/nvcc.log" ]; then wc -l <"$tmp/nvcc.log"; else echo 0; fi
}

for s in sgemm_128x128x8 matmul_template sgemm_extern_c multi_kernel_macros sgemm_declared; do
	f="$tmp/src/$s.cu"
	on=$(runs on "$kpipe" analyze --cuda-path "$cuda" "$f")
	KPIPE_PROBE_PAIR=on "$kpipe" analyze --cuda-path "$cuda" "$f" >"$tmp/$s.a-on" 2>&1
	off=$(runs off "$kpipe" analyze --cuda-path "$cuda" "$f")
	KPIPE_PROBE_PAIR=off "$kpipe" analyze --cuda-path "$cuda" "$f" >"$tmp/$s.a-off" 2>&1
	check "$s: analyze asked ptxas about the rewrite" grep -q 'ptxas: [0-9]* -> [0-9]* registers' "$tmp/$s.a-off"
	check "$s: analyze prints the same with and without the pair" cmp -s "$tmp/$s.a-on" "$tmp/$s.a-off"
	KPIPE_PROBE_PAIR=on "$kpipe" rewrite --no-verify --cuda-path "$cuda" "$f" -o "$tmp/$s.on.cu" 2>"$tmp/$s.r-on"
	KPIPE_PROBE_PAIR=off "$kpipe" rewrite --no-verify --cuda-path "$cuda" "$f" -o "$tmp/$s.off.cu" 2>"$tmp/$s.r-off"
	check "$s: rewrite writes the same" cmp -s "$tmp/$s.on.cu" "$tmp/$s.off.cu"
	check "$s: rewrite says the same" cmp -s "$tmp/$s.r-on" "$tmp/$s.r-off"
	if [ "$s" = sgemm_declared ]; then
		check "$s: no pair, nvcc runs as often ($on, $off)" test "$on" -eq "$off"
	else
		check "$s: nvcc runs once less with the pair ($on, $off)" test "$on" -eq $((off - 1))
	fi
done
kp_summary
