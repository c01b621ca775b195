#!/usr/bin/env bash
# gpu_headers.sh - kernels that live in project headers of public tutorial
# SGEMM series, rewritten by kpipe through the runner .cu that includes
# them, checked and timed on the GPU against the original header:
# bit-for-bit outputs at every size, compute-sanitizer memcheck, racecheck
# and synccheck, and the speedup at 4096^3.  No code of those projects is
# kept in this repository: PREPARE copies the headers out of checkouts you
# fetched yourself, into gpu-headers/ (git-ignored).
#
#   PREPARE=1 bash bench/gpu_headers.sh SGEMM_CUDA_DIR NVIDIA_SGEMM_PRACTICE_DIR LEETCUDA_DIR [KPIPE]
#       here: for each kernel of the table below, gpu-headers/NAME/ gets
#       orig/HDR (the header as published), the header as each variant
#       kpipe accepts writes it (VARIANT/HDR, from `kpipe rewrite RUNNER
#       --variant V -i` on a copy of the tree), a one-line .cu per version
#       including it, and the launch description of the runner's launch.
#       ONLY=REGEX prepares the kernels whose name matches (adding to what
#       gpu-headers/ holds); VARIANTS="auto register" the versions written
#       (NAME-s3, NAME-s4: --stages; NAME-pad, NAME-nopad: --pad, --no-pad);
#       HEADERS_BLOCK=1 gives kpipe the table's block (--block);
#       KPIPE_ARGS more options for every rewrite (--no-verify: the GPU
#       run checks every version at every size anyway).
#   bash bench/gpu_headers.sh
#       on the GPU machine: gpu_bench.py on each, $OUT/NAME.{md,json},
#       $OUT/summary.txt and $OUT/all.tgz.  GPU_BENCH_ARGS adds gpu_bench
#       options (--no-time: check and sanitize only); ONLY=REGEX runs the
#       kernels whose name matches; SANITIZE=0 leaves compute-sanitizer
#       out; PARALLEL_BUILD=1 builds every kernel's versions at once first
#       (gpu_bench.py --compile-only), then checks and times one kernel at
#       a time on what was built (--reuse-build).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${HEADERS_DIR:-$root/gpu-headers}" # HEADERS_DIR: another prepared folder

# name | repository key | file with the kernel (in the repository) | runner |
# kernel | template args | block (X or X;Y) | grid | BM (rows per block) |
# BN (columns per block) | argument style: sib (M, N, K, alpha, A, B, beta, C;
# siboehm's and wangzyon's), f32 or f16 (a, b, c, M, N, K; LeetCUDA's, float
# or half), cs (C, A, B, wA, wB; NVIDIA's matrixMulDrv, whose K-loop is in
# a __device__ function template behind #define AS(i, j) As[i][j]; its
# checkout is $CS_DIR).  Key nw: nicolaswilde/cuda-tensorcore-hgemm, a
# program whose kernels sit beside its main(), which the copies lose
# (strip_main); its checkout is $NW_DIR.  LeetCUDA's files are PyTorch extensions: kpipe rewrites them as
# they are (the missing <torch/...> headers are tolerated), and the copies
# built on the GPU machine lose the torch includes and the binding section
# (strip_torch, bench/strip_torch.sh).
table() {
	cat <<'EOF'
wangzyon_2|ws|src/kernel/kernel_2.cuh|src/utils.cu|mysgemm_v2|<32>|1024|CEIL(M,32);CEIL(N,32)|32|32|sib
wangzyon_3|ws|src/kernel/kernel_3.cuh|src/utils.cu|mysgemm_v3|<64, 64, 8, 8>|512|CEIL(M,64);CEIL(N,64)|64|64|sib
wangzyon_4|ws|src/kernel/kernel_4.cuh|src/utils.cu|mysgemm_v4|<128, 128, 8, 8, 8>|256|CEIL(M,128);CEIL(N,128)|128|128|sib
wangzyon_5|ws|src/kernel/kernel_5.cuh|src/utils.cu|mysgemm_v5|<128, 128, 8, 8, 8>|256|CEIL(M,128);CEIL(N,128)|128|128|sib
wangzyon_6|ws|src/kernel/kernel_6.cuh|src/utils.cu|mysgemm_v6|<128, 128, 8, 8, 8>|256|CEIL(M,128);CEIL(N,128)|128|128|sib
siboehm_3|sg|src/kernels/3_kernel_shared_mem_blocking.cuh|src/runner.cu|sgemm_shared_mem_block|<32>|1024|CEIL(M,32);CEIL(N,32)|32|32|sib
siboehm_4|sg|src/kernels/4_kernel_1D_blocktiling.cuh|src/runner.cu|sgemm1DBlocktiling|<64, 64, 8, 8>|512|CEIL(N,64);CEIL(M,64)|64|64|sib
siboehm_5|sg|src/kernels/5_kernel_2D_blocktiling.cuh|src/runner.cu|sgemm2DBlocktiling|<128, 128, 8, 8, 8>|256|CEIL(N,128);CEIL(M,128)|128|128|sib
siboehm_6|sg|src/kernels/6_kernel_vectorize.cuh|src/runner.cu|sgemmVectorize|<128, 128, 8, 8, 8>|256|CEIL(N,128);CEIL(M,128)|128|128|sib
siboehm_7|sg|src/kernels/7_kernel_resolve_bank_conflicts.cuh|src/runner.cu|sgemmResolveBankConflicts|<128, 128, 8, 8, 8>|256|CEIL(N,128);CEIL(M,128)|128|128|sib
siboehm_8|sg|src/kernels/8_kernel_bank_extra_col.cuh|src/runner.cu|sgemmResolveBankExtraCol|<128, 128, 8, 8, 8>|256|CEIL(N,128);CEIL(M,128)|128|128|sib
siboehm_9|sg|src/kernels/9_kernel_autotuned.cuh|src/runner.cu|sgemmAutotuned|<128, 128, 16, 8, 8>|256|CEIL(N,128);CEIL(M,128)|128|128|sib
siboehm_10|sg|src/kernels/10_kernel_warptiling.cuh|src/runner.cu|sgemmWarptiling|<128, 128, 16, 64, 64, 4, 8, 4, 128>|128|CEIL(N,128);CEIL(M,128)|128|128|sib
cuda_samples_matrixMulDrv|cs|Samples/0_Introduction/matrixMulDrv/matrixMul_kernel.cu|Samples/0_Introduction/matrixMulDrv/matrixMul_kernel.cu|matrixMul_bs16_64bit||16;16|CEIL(N,16);CEIL(M,16)|16|16|cs
leetcuda_sgemm_sliced_k|lc|kernels/sgemm/sgemm.cu|kernels/sgemm/sgemm.cu|sgemm_sliced_k_f32_kernel|<32, 32, 32>|32;32|CEIL(N,32);CEIL(M,32)|32|32|f32
leetcuda_sgemm_f32x4|lc|kernels/sgemm/sgemm.cu|kernels/sgemm/sgemm.cu|sgemm_t_8x8_sliced_k_f32x4_kernel|<128, 128, 8, 8, 8>|16;16|CEIL(N,128);CEIL(M,128)|128|128|f32
leetcuda_sgemm_f32x4_bcf|lc|kernels/sgemm/sgemm.cu|kernels/sgemm/sgemm.cu|sgemm_t_8x8_sliced_k_f32x4_bcf_kernel|<128, 128, 8, 8, 8, 0>|16;16|CEIL(N,128);CEIL(M,128)|128|128|f32
leetcuda_hgemm_sliced_k|lc|kernels/hgemm/naive/hgemm.cu|kernels/hgemm/naive/hgemm.cu|hgemm_sliced_k_f16_kernel|<32, 32, 32>|32;32|CEIL(N,32);CEIL(M,32)|32|32|f16
leetcuda_hgemm_f16x4|lc|kernels/hgemm/naive/hgemm.cu|kernels/hgemm/naive/hgemm.cu|hgemm_t_8x8_sliced_k_f16x4_kernel|<128, 128, 8, 8, 8>|16;16|CEIL(N,128);CEIL(M,128)|128|128|f16
leetcuda_hgemm_f16x4_pack|lc|kernels/hgemm/naive/hgemm.cu|kernels/hgemm/naive/hgemm.cu|hgemm_t_8x8_sliced_k_f16x4_pack_kernel|<128, 128, 8, 8, 8>|16;16|CEIL(N,128);CEIL(M,128)|128|128|f16
leetcuda_hgemm_f16x4_bcf|lc|kernels/hgemm/naive/hgemm.cu|kernels/hgemm/naive/hgemm.cu|hgemm_t_8x8_sliced_k_f16x4_bcf_kernel|<128, 128, 8, 8, 8>|16;16|CEIL(N,128);CEIL(M,128)|128|128|f16
leetcuda_hgemm_f16x4_pack_bcf|lc|kernels/hgemm/naive/hgemm.cu|kernels/hgemm/naive/hgemm.cu|hgemm_t_8x8_sliced_k_f16x4_pack_bcf_kernel|<128, 128, 8, 8, 8, 4>|16;16|CEIL(N,128);CEIL(M,128)|128|128|f16
leetcuda_hgemm_f16x8_pack_bcf|lc|kernels/hgemm/naive/hgemm.cu|kernels/hgemm/naive/hgemm.cu|hgemm_t_8x8_sliced_k_f16x8_pack_bcf_kernel|<128, 128, 8, 8, 8, 8>|16;16|CEIL(N,128);CEIL(M,128)|128|128|f16
leetcuda_hgemm_wmma_mma4x2|lc|kernels/hgemm/wmma/hgemm_wmma.cu|kernels/hgemm/wmma/hgemm_wmma.cu|hgemm_wmma_m16n16k16_mma4x2_kernel|<16, 16, 16, 4, 2>|256|CEIL(N,32);CEIL(M,64)|64|32|f16
leetcuda_hgemm_wmma_warp2x4|lc|kernels/hgemm/wmma/hgemm_wmma.cu|kernels/hgemm/wmma/hgemm_wmma.cu|hgemm_wmma_m16n16k16_mma4x2_warp2x4_kernel|<16, 16, 16, 4, 2, 2, 4>|256|CEIL(N,128);CEIL(M,128)|128|128|f16
leetcuda_hgemm_mma2x4_warp4x4|lc|kernels/hgemm/mma/basic/hgemm_mma.cu|kernels/hgemm/mma/basic/hgemm_mma.cu|hgemm_mma_m16n8k16_mma2x4_warp4x4_kernel|<16, 8, 16, 2, 4, 4, 4, 8, 8>|256|CEIL(N,128);CEIL(M,128)|128|128|f16
nicolaswilde_v1|nw|gemm-tc-f16f16-128x256-public/gemm.cu|gemm-tc-f16f16-128x256-public/gemm.cu|myHGEMMAlignedV1||256|CEIL(N,256);CEIL(M,128)|128|256|f16
EOF
}

# shellcheck source=bench/strip_torch.sh
. "$root/bench/strip_torch.sh"

ceil_expr() { # CEIL(M,32) -> (M + 31) / 32
	sed -E 's/CEIL\(([A-Z]),([0-9]+)\)/(\1 + \2 - 1) \/ \2/g' <<<"$1"
}

spec() { # kernel targs block grid bm bn style
	local g0 g1 b0 b1=1 ty=float
	g0=$(ceil_expr "${4%%;*}")
	g1=$(ceil_expr "${4#*;}")
	b0=${3%%;*}
	case "$3" in *\;*) b1=${3#*;} ;; esac
	[ "$7" = f16 ] && ty=half
	# matrixMulDrv's loop runs a <= aEnd with aEnd = aBegin + wA - 1 in
	# size_t: with wA = 0 it does not end (the original reads out of
	# bounds), so it has no "empty" size
	# the smallest square size the block tiles divide (256 for
	# nicolaswilde's 128x256 tiles)
	local m0=128
	[ "$6" -gt 128 ] && m0=$6
	local empty="
    \"empty\": {\"M\": $m0, \"N\": $m0, \"K\": 0},"
	[ "$7" = cs ] && empty=""

	cat <<EOF
{
  "kernel": "$1",
  "template_args": "$2",
  "block": ["$b0", "$b1", "1"],
  "grid": ["$g0", "$g1", "1"],
  "requires": ["M == N", "M % $5 == 0", "M % $6 == 0", "K % 32 == 0"],
  "sizes": {
    "tiny": {"M": $m0, "N": $m0, "K": 32},
    "small": {"M": 256, "N": 256, "K": 96},
    "odd": {"M": $m0, "N": $m0, "K": 160},
    "even": {"M": 256, "N": 256, "K": 256},$empty
    "target": {"M": 4096, "N": 4096, "K": 4096}
  },
EOF
	if [ "$7" = cs ]; then
		cat <<EOF
  "args": [
    {"name": "C", "role": "out", "type": "float", "count": "M * N"},
    {"name": "A", "role": "in", "type": "float", "count": "M * K"},
    {"name": "B", "role": "in", "type": "float", "count": "K * N"},
    {"name": "wA", "role": "scalar", "type": "int", "value": "K"},
    {"name": "wB", "role": "scalar", "type": "int", "value": "N"}
  ],
EOF
	elif [ "$7" = sib ]; then
		cat <<EOF
  "args": [
    {"name": "M", "role": "scalar", "type": "int", "value": "M"},
    {"name": "N", "role": "scalar", "type": "int", "value": "N"},
    {"name": "K", "role": "scalar", "type": "int", "value": "K"},
    {"name": "alpha", "role": "scalar", "type": "float", "value": "1.5"},
    {"name": "A", "role": "in", "type": "float", "count": "M * K"},
    {"name": "B", "role": "in", "type": "float", "count": "K * N"},
    {"name": "beta", "role": "scalar", "type": "float", "value": "0.5"},
    {"name": "C", "role": "inout", "type": "float", "count": "M * N"}
  ],
EOF
	else
		cat <<EOF
  "args": [
    {"name": "a", "role": "in", "type": "$ty", "count": "M * K"},
    {"name": "b", "role": "in", "type": "$ty", "count": "K * N"},
    {"name": "c", "role": "out", "type": "$ty", "count": "M * N"},
    {"name": "M", "role": "scalar", "type": "int", "value": "M"},
    {"name": "N", "role": "scalar", "type": "int", "value": "N"},
    {"name": "K", "role": "scalar", "type": "int", "value": "K"}
  ],
EOF
	fi
	cat <<EOF
  "tolerance": {"abs": 0, "rel": 0},
  "work": {"flops": "2.0 * M * N * K"},
  "note": "a kernel of a public SGEMM collection; launched as its runner does (square matrices: the runners only use those, and one series swaps the grid's axes)"
}
EOF
}

if [ "${PREPARE:-0}" = 1 ]; then
	use="usage: PREPARE=1 gpu_headers.sh SGEMM_CUDA_DIR NVIDIA_SGEMM_PRACTICE_DIR LEETCUDA_DIR [KPIPE]"
	sg="${1:?$use}"
	ws="${2:?$use}"
	lc="${3:?$use}"
	kpipe="$(realpath "${4:-$root/build/kpipe}")"
	[ -n "${ONLY:-}" ] || rm -rf "$work"
	mkdir -p "$work"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	while IFS='|' read -r name key hdr runner kernel targs block grid bm bn style; do
		[ -n "${ONLY:-}" ] && ! grep -qE "$ONLY" <<<"$name" && continue
		case "$key" in
		sg) src=$sg ;;
		ws) src=$ws ;;
		cs) src=${CS_DIR:?CS_DIR: the cuda-samples checkout} ;;
		nw) src=${NW_DIR:?NW_DIR: the nicolaswilde/cuda-tensorcore-hgemm checkout} ;;
		*) src=$lc ;;
		esac
		d="$work/$name"
		mkdir -p "$d/orig"
		base=$(basename "$hdr")
		cp "$src/$hdr" "$d/orig/$base"
		strip_source "$key" "$d/orig/$base"
		printf '#include "orig/%s"\n' "$base" >"$d/kernel.cu"
		spec "$kernel" "$targs" "$block" "$grid" "$bm" "$bn" "$style" >"$d/kernel.launch.json"
		for v in ${VARIANTS:-auto cp-async register register-ca register-2bar cp-async-s3 cp-async-s4}; do
			rm -rf "$tmp/tree"
			# NAME[-s3|-s4][-pad|-nopad][-occ|-raise][-swz]: --stages, --pad,
			# --no-pad, --keep-occupancy, --raise-occupancy, --block-swizzle
			vb=$v
			args=()
			occ=
			swz=
			case "$vb" in *-swz) vb=${vb%-swz} swz=1 args+=(--block-swizzle) ;; esac
			case "$vb" in *-occ) vb=${vb%-occ} occ=--keep-occupancy ;; *-raise) vb=${vb%-raise} occ=--raise-occupancy ;; esac
			case "$vb" in *-nopad) vb=${vb%-nopad} args+=(--no-pad) ;; *-pad) vb=${vb%-pad} args+=(--pad) ;; esac
			case "$vb" in *-s3) args+=(--stages 3) ;; *-s4) args+=(--stages 4) ;; esac
			args+=(--variant "${vb%-s[34]}")
			# HEADERS_BLOCK=1: the block of the table given (--block), as
			# the launcher kpipe cannot see (a PyTorch binding) says it
			[ -n "${HEADERS_BLOCK:-}" ] && args+=(--block "${block/;/,}")
			if [ "$key" = lc ] || [ "$key" = cs ] || [ "$key" = nw ]; then # one file (one kernel of it)
				mkdir -p "$tmp/tree/$(dirname "$hdr")"
				cp "$src/$hdr" "$tmp/tree/$hdr"
				[ "$key" != cs ] && args+=(--kernel "$kernel")
			else
				cp -r "$src" "$tmp/tree"
			fi
			# the bound needs ptxas on the file (its torch binding cut off,
			# as the harness builds it) and the instantiation the launch
			# description names (the binding's launch is gone with it)
			if [ -n "$occ" ]; then
				args+=("$occ" --spec "$d/kernel.launch.json")
				strip_source "$key" "$tmp/tree/$hdr"
			fi
			# shellcheck disable=SC2086 # KPIPE_ARGS: options, split
			(cd "$tmp/tree" && "$kpipe" rewrite "$runner" -i \
				"${args[@]}" ${KPIPE_ARGS:-} >/dev/null 2>"$d/$v.log")
			# a bound that changes nothing (the note says why) is the
			# variant without it: not built twice
			same=
			[ -n "$occ" ] && ! grep -q '__launch_bounds__(.*) added' "$d/$v.log" && same=1
			# likewise a remap the kernel refuses (the warning says why)
			[ -n "$swz" ] && ! grep -q '\[kpipe-block-swizzled\]' "$d/$v.log" && same=1
			if [ -z "$same" ] && ! cmp -s "$src/$hdr" "$tmp/tree/$hdr"; then
				mkdir -p "$d/$v"
				cp "$tmp/tree/$hdr" "$d/$v/$base"
				strip_source "$key" "$d/$v/$base"
				printf '#include "%s/%s"\n' "$v" "$base" >"$d/$v.cu"
			fi
		done
		echo "$name: $(cd "$d" && ls -d */ | tr -d / | tr '\n' ' ')"
	done < <(table)
	exit 0
fi

sizes_of() { # the size names of a launch description, comma-separated
	python3 -c 'import json, sys; print(",".join(json.load(open(sys.argv[1]))["sizes"]))' "$1"
}

out="${OUT:-$root/gpu-headers-out}"
mkdir -p "$out"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi -L 2>&1
	echo "commit: ${KPIPE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
} >"$out/summary.txt"
status=0
sanitize=(--sanitize --sanitize-size small)
[ "${SANITIZE:-1}" = 0 ] && sanitize=()
builds=$(mktemp -d)
# bench NAME DIR [ARGS...]: gpu_bench.py on one prepared kernel
bench() {
	local name=$1 d=$2
	shift 2
	local vs=() f v
	for f in "$d"*.cu; do
		v=$(basename "$f" .cu)
		case "$v" in
		kernel) ;;
		yard-*) vs+=(--yardstick "${v#yard-}=$f") ;; # an author's kernel, cuBLAS (bench/families.sh)
		*) vs+=(--variant "$v=$f") ;;
		esac
	done
	# shellcheck disable=SC2086 # GPU_BENCH_ARGS: options, split
	python3 "$root/bench/gpu_bench.py" --spec "$d/kernel.launch.json" --baseline "$d/kernel.cu" \
		"${vs[@]}" "${sanitize[@]}" --sizes "$(sizes_of "$d/kernel.launch.json")" \
		--no-hand --no-ref --quiet --build-dir "$builds/$name" "$@" ${GPU_BENCH_ARGS:-}
}
if [ "${PARALLEL_BUILD:-0}" = 1 ]; then
	for d in "$work"/*/; do
		name=$(basename "$d")
		[ -n "${ONLY:-}" ] && ! grep -qE "$ONLY" <<<"$name" && continue
		bench "$name" "$d" --compile-only --jobs 4 >"$out/$name.build.log" 2>&1 &
	done
	wait
fi
for d in "$work"/*/; do
	name=$(basename "$d")
	# ONLY=REGEX: those kernels only (a run split over several calls)
	[ -n "${ONLY:-}" ] && ! grep -qE "$ONLY" <<<"$name" && continue
	bench "$name" "$d" --reuse-build --report "$out/$name.md" --json "$out/$name.json" >"$out/$name.log" 2>&1
	rc=$?
	n=$(find "$d" -maxdepth 1 -name '*.cu' ! -name kernel.cu | wc -l)
	echo "$name: gpu_bench exit $rc ($n versions)" >>"$out/summary.txt"
	[ $rc = 0 ] || status=1
done
rm -rf "$builds"
cat "$out/summary.txt"
tar -C "$out" -czf "$out/../gpu-headers.tgz" . && mv "$out/../gpu-headers.tgz" "$out/all.tgz"
exit $status
