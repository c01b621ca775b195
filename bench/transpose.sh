#!/usr/bin/env bash
# transpose.sh - issue #20's memory-order benchmark on a GPU (the lead runs it
# on the H200; it needs nvcc, a device, and for the counters ncu).
#
#  1. builds bench/transpose/transpose_bench.cu (nvcc -O3 -arch=sm_90) and
#     times a tiled copy and the transpose samples (naive, shared
#     tile[32][32], padded tile[32][33], the 48 KB tile[128][96] of
#     transpose_wide_tile, which no padding fits) and, with kpipe, their
#     XOR-swizzled rewrites (transpose_shared with `rewrite --pad-only
#     --swizzle`, transpose_wide_tile with `rewrite --pad-only`) at N x N
#     floats (the wide tile: N x N', N' the largest multiple of 96): warm-up,
#     median of REPS cudaEvent-timed launches, GB/s and % of the copy; every
#     kernel is checked against a host transpose first (exit 1 when one is
#     wrong);
#  2. with ncu: shared-memory bank conflicts (loads, stores) and DRAM
#     throughput of one launch of each kernel;
#  3. kpipe validate --profile on samples/matmul_column_read.cu against its
#     pipelined rewrite, on transpose_shared against transpose_padded
#     (renamed so the launch description applies) and against its swizzle,
#     on transpose_wide_tile against its swizzle, and on
#     samples/wmma_column_conflict.cu against its --pad-only rewrite and,
#     pipelined with cp.async, against --pad --variant cp-async (the wmma
#     fragment loads' 8-way conflicts, padded to [64][72]): the side-by-side
#     profile.  (validate's SASS step fails on a padding without pipelining,
#     as expected; its step 4 runs all the same.)
#  4. padding and pipelining alone and together on the K-loop samples
#     (matmul_column_read, wmma_column_conflict, sgemm_128x128x8):
#     `rewrite --pad-only`, the rewrite without and with `--pad` (auto's
#     choice, and cp.async forced so that both sides use the same
#     transform), and but for wmma_column_conflict (whose fragments cannot
#     be swizzled) the same with `--swizzle`, checked at every size of
#     the launch description, timed at the target size and run under
#     compute-sanitizer by bench/gpu_bench.py in one harness (the same
#     inputs, paired).
#
# Everything goes to stdout as markdown for docs/benchmarks.md and into
# $OUT (or a temporary directory): table.md, ncu-*.csv, validate-*.txt.
#
# usage: bench/transpose.sh [N] [REPS]     (defaults 8192 and 51; N a multiple of 128)
# env:   KPIPE (default build-dev/kpipe, else build/kpipe), NVCC, NCU, ARCH (sm_90)
#        (a kpipe built on Debian runs on the GPU machine through
#        bench/device_env.sh and the packages in .debs/)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
n="${1:-8192}"
reps="${2:-51}"
arch="${ARCH:-sm_90}"
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kpipe-transpose-XXXXXX")}"
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
ncu="${NCU:-$(command -v ncu || { [ -x "$(dirname "$nvcc")/ncu" ] && echo "$(dirname "$nvcc")/ncu"; } || true)}"
kpipe="${KPIPE:-}"
[ -n "$kpipe" ] || for k in build-dev/kpipe build/kpipe; do [ -x "$k" ] && { kpipe="$k"; break; }; done
status=0

if [ ! -x "$nvcc" ]; then
	echo "transpose.sh: nvcc not found (set NVCC)" >&2
	exit 2
fi
echo "## Transpose: coalescing and bank conflicts (issue #20)"
echo
# kpipe's swizzles of the transposes, their kernels renamed, for the bench
swz=()
if [ -n "$kpipe" ] && [ -x "$kpipe" ]; then
	# shellcheck source=bench/device_env.sh
	source bench/device_env.sh "$kpipe" || exit 2
	mkdir -p "$out/swz"
	if "$kpipe" rewrite --pad-only --swizzle samples/transpose_shared.cu -o "$out/swz/s.cu" \
		"${KPIPE_PARSE_ARGS[@]}" 2>"$out/swizzle.err" &&
		"$kpipe" rewrite --pad-only samples/transpose_wide_tile.cu -o "$out/swz/w.cu" \
			"${KPIPE_PARSE_ARGS[@]}" 2>>"$out/swizzle.err" &&
		[ "$(grep -c '\[kpipe-swizzled\]' "$out/swizzle.err")" -eq 2 ]; then
		sed 's/\btranspose_shared\b/transpose_shared_swizzled/g' "$out/swz/s.cu" >"$out/swz/transpose_shared_swizzled.cu"
		sed 's/\btranspose_wide_tile\b/transpose_wide_tile_swizzled/g' "$out/swz/w.cu" >"$out/swz/transpose_wide_tile_swizzled.cu"
		swz=(-DKP_SWIZZLED -I "$out/swz")
	else
		echo "kpipe did not swizzle the transposes (see $out/swizzle.err): the swizzled kernels are SKIPPED"
		echo
		status=1
	fi
fi
"$nvcc" -O3 -arch="$arch" -lineinfo "${swz[@]}" -o "$out/transpose_bench" bench/transpose/transpose_bench.cu ||
	{ echo "transpose.sh: the build failed" >&2; exit 2; }
"$out/transpose_bench" "$n" "$reps" | tee "$out/table.md"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo; echo "**transpose_bench exit $rc: a kernel is wrong or CUDA failed (see stderr)**"; status=1; }
echo

metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
if [ -z "$ncu" ] || [ ! -x "$ncu" ]; then
	echo "ncu (Nsight Compute) not found: bank-conflict counts SKIPPED (set NCU)"
else
	echo "Nsight Compute ($("$ncu" --version | tail -1)), one launch each:"
	echo
	echo "| kernel | shared ld bank conflicts | shared st bank conflicts | DRAM % of peak | duration us |"
	echo "|---|---:|---:|---:|---:|"
	kernels=(copy transpose_naive transpose_shared transpose_padded transpose_wide_tile)
	[ ${#swz[@]} -gt 0 ] && kernels+=(transpose_shared_swizzled transpose_wide_tile_swizzled)
	for k in "${kernels[@]}"; do
		regex="$k"
		[ "$k" = copy ] && regex=copy_tiled
		"$ncu" --csv --page raw --print-units base --metrics "$metrics" -k "regex:^$regex" -c 1 \
			"$out/transpose_bench" "$n" 1 --once "$k" >"$out/ncu-$k.csv" 2>&1
		if grep -q ERR_NVGPUCTRPERM "$out/ncu-$k.csv"; then
			echo
			echo "ncu may not read the performance counters (ERR_NVGPUCTRPERM): counts SKIPPED"
			break
		fi
		python3 - "$out/ncu-$k.csv" "$k" <<'PY'
import csv, sys
lines = open(sys.argv[1], errors="replace").read().splitlines()
start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
if start is None:
    print("| %s | ncu gave no report (see %s) | | | |" % (sys.argv[2], sys.argv[1]))
    sys.exit(0)
rows = list(csv.reader(lines[start:start + 3]))
head, units, row = rows[0], rows[1], rows[2] if len(rows) > 2 else []
def get(m, scale=1.0):
    if m not in head or not row:
        return "n/a"
    v = row[head.index(m)].replace(",", "")
    try:
        x = float(v)
    except ValueError:
        return "n/a"
    if units[head.index(m)] in ("nsecond", "ns"):
        x *= scale
    return "%.0f" % x if x == int(x) and scale == 1.0 else "%.2f" % x
print("| %s | %s | %s | %s | %s |" % (sys.argv[2],
      get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
      get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
      get("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
      get("gpu__time_duration.sum", 1e-3)))
PY
	done
fi
echo

if [ -z "$kpipe" ] || [ ! -x "$kpipe" ]; then
	echo "kpipe not found (set KPIPE): kpipe validate --profile SKIPPED"
	exit "$status"
fi
echo "### kpipe validate --profile"
echo
"$kpipe" rewrite samples/matmul_column_read.cu -o "$out/matmul_column_read.pipelined.cu" \
	"${KPIPE_PARSE_ARGS[@]}" 2>"$out/rewrite.err" ||
	{ echo "kpipe rewrite failed: $(head -3 "$out/rewrite.err")"; status=1; }
sed 's/transpose_padded/transpose_shared/g' samples/transpose_padded.cu >"$out/transpose_shared.padded.cu"
run_validate() { # label original result
	echo "#### $1"
	echo
	echo '```'
	"$kpipe" validate "$2" "$3" --profile --no-sanitize --sizes tiny,small,target \
		--spec "${2%.cu}.launch.json" >"$out/validate-$1.txt" 2>&1
	echo "(kpipe validate exit $?)" >>"$out/validate-$1.txt"
	sed -n '/^step 4/,/^step 5/p' "$out/validate-$1.txt" | sed '$d'
	tail -1 "$out/validate-$1.txt"
	echo '```'
	echo
}
[ -s "$out/matmul_column_read.pipelined.cu" ] &&
	run_validate matmul_column_read samples/matmul_column_read.cu "$out/matmul_column_read.pipelined.cu"
run_validate transpose_shared-vs-padded samples/transpose_shared.cu "$out/transpose_shared.padded.cu"
if [ ${#swz[@]} -gt 0 ]; then
	run_validate transpose_shared-vs-swizzled samples/transpose_shared.cu "$out/swz/s.cu"
	run_validate transpose_wide_tile-vs-swizzled samples/transpose_wide_tile.cu "$out/swz/w.cu"
fi
w=samples/wmma_column_conflict
if "$kpipe" rewrite --pad-only "$w.cu" -o "$out/wmma_column_conflict.padded.cu" "${KPIPE_PARSE_ARGS[@]}" 2>>"$out/rewrite.err" &&
	"$kpipe" rewrite --variant cp-async "$w.cu" -o "$out/wmma_cc.pipelined.cu" "${KPIPE_PARSE_ARGS[@]}" 2>>"$out/rewrite.err" &&
	"$kpipe" rewrite --pad --variant cp-async "$w.cu" -o "$out/wmma_cc.padded-pipelined.cu" "${KPIPE_PARSE_ARGS[@]}" 2>>"$out/rewrite.err"; then
	cp "$w.launch.json" "$out/wmma_cc.pipelined.launch.json"
	run_validate wmma_column_conflict-vs-padded "$w.cu" "$out/wmma_column_conflict.padded.cu"
	run_validate wmma_column_conflict-pipelined-vs-padded-pipelined "$out/wmma_cc.pipelined.cu" \
		"$out/wmma_cc.padded-pipelined.cu"
else
	echo "kpipe rewrite of $w.cu failed: $(tail -3 "$out/rewrite.err")"
	status=1
fi

for smp in matmul_column_read wmma_column_conflict sgemm_128x128x8; do
	echo "### Padding and pipelining, alone and together ($smp)"
	echo
	pp=(--spec samples/$smp.launch.json --baseline samples/$smp.cu)
	vs=("pad-only:--pad-only" "pipelined:" "pad-pipelined:--pad"
		"cp-async:--variant cp-async" "pad-cp-async:--pad --variant cp-async")
	[ "$smp" != wmma_column_conflict ] && vs+=("swizzle-only:--pad-only --swizzle"
		"swizzle-pipelined:--pad --swizzle" "swizzle-cp-async:--pad --swizzle --variant cp-async")
	for v in "${vs[@]}"; do
		name="${v%%:*}"
		# shellcheck disable=SC2086 # the options are a list
		if "$kpipe" rewrite samples/$smp.cu ${v#*:} -o "$out/$smp.$name.cu" \
			"${KPIPE_PARSE_ARGS[@]}" 2>"$out/$smp.$name.err"; then
			pp+=(--variant "$name=$out/$smp.$name.cu")
			echo "- $name: \`kpipe rewrite ${v#*:}\`: $(grep -m1 -o '// kpipe: \(register\|cp.async\)[^:]*' "$out/$smp.$name.cu" | sed 's,// kpipe: ,,' | grep . || echo "not pipelined (padded or swizzled only)")"
		else
			echo "- $name: kpipe rewrite failed: $(head -2 "$out/$smp.$name.err")"
			status=1
		fi
	done
	echo
	python3 bench/gpu_bench.py "${pp[@]}" --arch "$arch" --sanitize --no-hand --no-ref \
		--json "$out/padpipe-$smp.json" --report "$out/padpipe-$smp.md" --quiet >"$out/padpipe-$smp.log" 2>&1 ||
		{ echo "**gpu_bench.py failed (exit $?): see padpipe-$smp.log**"; status=1; }
	[ -s "$out/padpipe-$smp.md" ] && cat "$out/padpipe-$smp.md"
	echo
done
echo "(files in $out)"
exit "$status"
