#!/usr/bin/env bash
# batch_speed.sh - the speed figures of issue 33 (docs/benchmarks.md,
# "Batch speed"): wall and CPU seconds (user+system, children included) of
#   - a batch over every sample (`rewrite samples --out-dir -j2`), with an
#     empty cache and again with the cache it left, by default, with
#     --no-ptxas, with --no-verify --no-ptxas;
#   - `rewrite` of single samples against `nvcc -c` of the same file;
#   - with MAGMA=DIR (icl-utk-edu/magma, its precisions generated, see
#     bench/production_eval.tsv): `analyze -j2` and a `rewrite --out-dir
#     -j2` batch over its magmablas/z*.cu with the library's own flags.
#
#   bash bench/batch_speed.sh [KPIPE]      (MAGMA=DIR for the library; MODES="default|--no-ptxas"
#                                          picks the batch runs, separated by |)
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kpipe="${1:-$root/build/kpipe}"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
unset KPIPE_NO_PTXAS
# run LABEL CMD...: one line, "| LABEL | wall s | CPU s |"
run() {
	local label="$1"
	shift
	/usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" >/dev/null 2>&1
	read -r w u s <"$tmp/t"
	printf '| %s | %.1f | %.1f |\n' "$label" "$w" "$(echo "$u + $s" | bc)"
}
n=$(ls "$root"/samples/*.cu | wc -l)
echo "| run ($n samples, -j2) | wall s | CPU s |"
echo "|---|---|---|"
IFS='|' read -r -a modes <<<"${MODES:-default|--no-ptxas|--no-verify --no-ptxas}"
for mode in "${modes[@]}"; do
	c="$tmp/cache-${mode// /}"
	# shellcheck disable=SC2086 # the mode is several options
	KPIPE_CACHE_DIR="$c" run "batch $mode, empty cache" "$kpipe" rewrite $( [ "$mode" = default ] || echo $mode ) \
		-j2 --out-dir "$tmp/out1" "$root/samples"
	# shellcheck disable=SC2086
	KPIPE_CACHE_DIR="$c" run "batch $mode, its cache" "$kpipe" rewrite $( [ "$mode" = default ] || echo $mode ) \
		-j2 --out-dir "$tmp/out2" "$root/samples"
	rm -rf "$tmp/out1" "$tmp/out2"
done
echo
echo "| file | nvcc -c CPU s | rewrite CPU s (empty cache) | --no-verify | --no-verify --no-ptxas | rewrite again (its cache) |"
echo "|---|---|---|---|---|---|"
for s in matmul_32x32 matmul_template sgemm_128x128x8; do
	f="$root/samples/$s.cu"
	cpu() { /usr/bin/time -f "%U %S" -o "$tmp/t" "$@" >/dev/null 2>&1; read -r u s <"$tmp/t"; echo "$u + $s" | bc; }
	c="$tmp/one-$s"
	a=$(cpu "$nvcc" -arch=sm_90 -c "$f" -o "$tmp/o.o")
	b=$(KPIPE_CACHE_DIR="$c" cpu "$kpipe" rewrite "$f" -o "$tmp/o.cu")
	c2=$(KPIPE_CACHE_DIR="$c-2" cpu "$kpipe" rewrite --no-verify "$f" -o "$tmp/o.cu")
	d=$(KPIPE_CACHE_DIR="$c-3" cpu "$kpipe" rewrite --no-verify --no-ptxas "$f" -o "$tmp/o.cu")
	e=$(KPIPE_CACHE_DIR="$c" cpu "$kpipe" rewrite "$f" -o "$tmp/o.cu")
	echo "| $s | $a | $b | $c2 | $d | $e |"
done
if [ -n "${MAGMA:-}" ]; then
	flags=(-O3 -DNDEBUG -DADD_ -std=c++11 -I"$MAGMA/include" -I"$MAGMA/testing" -I"$MAGMA/control"
		-gencode arch=compute_70,code=sm_70 -gencode arch=compute_80,code=sm_80)
	files=("$MAGMA"/magmablas/z*.cu)
	echo
	echo "| MAGMA magmablas/z*.cu (${#files[@]} files, -j2) | wall s | CPU s |"
	echo "|---|---|---|"
	KPIPE_CACHE_DIR="$tmp/m" run "analyze" "$kpipe" analyze -j2 "${files[@]}" -- "${flags[@]}"
	KPIPE_CACHE_DIR="$tmp/m" run "rewrite --out-dir (default)" "$kpipe" rewrite -j2 --out-dir "$tmp/mout" "${files[@]}" -- "${flags[@]}"
fi
