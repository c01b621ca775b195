#!/usr/bin/env bash
# bulk_profile.sh - issue #19: the bulk variant against the best cp.async
# ring on the samples bulk applies to, with Nsight Compute's reasons.  On a
# machine with a GPU, nvcc and ncu:
#
#  1. kpipe writes, for each sample, the cp.async ring with the stage count
#     that measured best on the H200 (docs/benchmarks.md, "Bulk copies") and
#     the bulk variant(s) of $BULK ("bulk" by default; NAME:OPTIONS adds a
#     form by its options, e.g. BULK="bulk bulk-s3:--stages=3"; a name
#     beginning with tma is the tensor-map form, --variant tma); a ring
#     kpipe refuses (wmma_bulk_half's 2-byte copies for cp.async) is listed
#     as not written and left out;
#     EDITS="hint nofence" adds, for the first bulk form, copies edited by
#     hand to test a remedy before kpipe writes it: `hint` gives the
#     mbarrier wait a suspend-time hint (try_wait.parity ..., 0x989680, as
#     CUTLASS's waits do) instead of spinning; `nofence` drops the copy
#     helper's fence.proxy.async (only sound when no fallback fill ran: the
#     check against the original says whether the results still agree);
#     `hint-nofence` both;
#  2. bench/gpu_bench.py builds them into one harness, checks every version
#     against the original at every size of the launch description and
#     times them at the target size (median of 21 launches);
#  3. ncu profiles one target-size launch of each version: duration,
#     instructions executed, issue-slot use, achieved occupancy and every
#     warp-stall reason per issued instruction (the
#     smsp__average_warps_issue_stalled_*_per_issue_active.ratio family);
#     a markdown table lists the largest reasons side by side.
#
# usage: bench/bulk_profile.sh [SAMPLE:STAGES ...]  (default: the bulk
#        samples, the guarded ones included: sgemm_at_bulk:2 matmul_bulk_float:2
#        matmul_32x32:4 matmul_cuda_sample_style:2 sgemm_bulk_guarded:2
#        wmma_bulk_half:2 matmul_guarded:2)
# env:   KPIPE (default build-dev/kpipe, else build/kpipe), NCU, ARCH (sm_90),
#        OUT (default: a temporary directory), BULK (see 1.), SANITIZE=1
#        (gpu_bench.py --sanitize: memcheck, racecheck, synccheck) at the
#        sizes of SANITIZE_SIZES (default small; e.g. tiny,small,even,odd,empty:
#        those of the launch description, the others ignored)
# A kpipe built on Debian runs on the GPU machine through bench/device_env.sh.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
arch="${ARCH:-sm_90}"
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kpipe-bulkprof-XXXXXX")}"
mkdir -p "$out"
kpipe="${KPIPE:-}"
[ -n "$kpipe" ] || for k in build-dev/kpipe build/kpipe; do [ -x "$k" ] && { kpipe="$k"; break; }; done
ncu="${NCU:-$(command -v ncu || true)}"
[ -n "$ncu" ] || for c in /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu; do [ -x "$c" ] && ncu="$c"; done
# shellcheck source=bench/device_env.sh
source bench/device_env.sh "$kpipe" || exit 2
samples=("$@")
[ ${#samples[@]} -gt 0 ] ||
	samples=(sgemm_at_bulk:2 matmul_bulk_float:2 matmul_32x32:4 matmul_cuda_sample_style:2
		sgemm_bulk_guarded:2 wmma_bulk_half:2 matmul_guarded:2)
read -r -a bulks <<<"${BULK:-bulk}"
metrics='regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$'
metrics+=',smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active'
metrics+=',sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum'
status=0

echo "## Bulk copies against the best cp.async ring, with Nsight Compute (issue #19)"
echo
echo "GPU: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>&1 | head -1);" \
	"ncu: $("$ncu" --version 2>&1 | tail -1); kpipe: $("$kpipe" --version)"
echo
for sv in "${samples[@]}"; do
	s="${sv%%:*}"
	n="${sv#*:}"
	echo "### $s"
	echo
	vs=()
	"$kpipe" rewrite "samples/$s.cu" --arch "$arch" --variant cp-async --stages "$n" \
		-o "$out/$s.cp-async-s$n.cu" "${KPIPE_PARSE_ARGS[@]}" 2>"$out/$s.cp-async.err" ||
		{ echo "kpipe rewrite --variant cp-async failed: $(head -2 "$out/$s.cp-async.err")"; status=1; continue; }
	# a refusal writes the input unchanged (exit 0): not a cp.async ring
	if cmp -s "samples/$s.cu" "$out/$s.cp-async-s$n.cu"; then
		echo "- cp-async-s$n: not written: $(grep -m1 -o '\[kpipe-[a-z-]*\]' "$out/$s.cp-async.err" || head -1 "$out/$s.cp-async.err")"
	else
		vs+=(--variant "cp-async-s$n=$out/$s.cp-async-s$n.cu")
	fi
	for b in "${bulks[@]}"; do
		name="${b%%:*}"
		opts=""
		[ "$b" = "$name" ] || opts="${b#*:}"
		# the tensor-map form's names begin with tma
		variant=bulk
		[[ "$name" == tma* ]] && variant=tma
		# shellcheck disable=SC2086 # opts is a list of options
		if "$kpipe" rewrite "samples/$s.cu" --arch "$arch" --variant "$variant" $opts \
			-o "$out/$s.$name.cu" "${KPIPE_PARSE_ARGS[@]}" 2>"$out/$s.$name.err" &&
			grep -q 'cp.async.bulk' "$out/$s.$name.cu"; then
			vs+=(--variant "$name=$out/$s.$name.cu")
		else
			echo "- $name: not written: $(grep -m1 -o '\[kpipe-[a-z-]*\]' "$out/$s.$name.err" || head -1 "$out/$s.$name.err")"
		fi
	done
	first="${bulks[0]%%:*}"
	for e in ${EDITS:-}; do
		[ -s "$out/$s.$first.cu" ] || break
		sedx=()
		if [[ "$e" == hint* ]]; then
			sedx+=(-e 's/b64 p, \[%1\], %2;/b64 p, [%1], %2, %3;/')
			sedx+=(-e 's/"r"(parity) : "memory"/"r"(parity), "r"(0x989680u) : "memory"/')
		fi
		[[ "$e" == *nofence* ]] && sedx+=(-e '/the slot.s earlier plain stores/{n;d}')
		sed "${sedx[@]}" "$out/$s.$first.cu" >"$out/$s.$first-$e.cu"
		if cmp -s "$out/$s.$first.cu" "$out/$s.$first-$e.cu"; then
			echo "- $first-$e: the edit changed nothing"
		else
			vs+=(--variant "$first-$e=$out/$s.$first-$e.cu")
		fi
	done
	python3 bench/gpu_bench.py --spec "samples/$s.launch.json" --baseline "samples/$s.cu" "${vs[@]}" \
		--arch "$arch" ${SANITIZE:+--sanitize --sanitize-size "${SANITIZE_SIZES:-small}"} --build-dir "$out/build-$s" --json "$out/$s.json" --report "$out/$s.md" \
		--quiet >"$out/$s.log" 2>&1 || { echo "**gpu_bench.py exit $? (see $s.log)**"; status=1; }
	[ -s "$out/$s.md" ] && sed -n '/^| version/,/^$/p' "$out/$s.md"
	if [ -z "$ncu" ]; then
		echo "ncu not found: the profile is SKIPPED (set NCU)"
		echo
		continue
	fi
	harness=$(ls "$out/build-$s"/*/harness 2>/dev/null | head -1)
	kernel=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"])' "samples/$s.launch.json")
	csvs=()
	for lib in "$out/build-$s"/*/v*.so; do
		[ -n "$harness" ] || break
		v=$(basename "$lib" .so)
		v="${v#v[0-9][0-9]_}"
		"$ncu" --csv --page raw --print-units base --metrics "$metrics" -k "regex:$kernel" -c 1 \
			"$harness" --single --sizes target --lib "$v=$lib" >"$out/$s.ncu-$v.csv" 2>&1
		csvs+=("$v=$out/$s.ncu-$v.csv")
	done
	python3 - "${csvs[@]}" <<'PY'
import csv, sys
cols, vals = [], {}
for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    lines = open(path, errors="replace").read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    cols.append(name)
    if start is None:
        vals[name] = {}
        print("- %s: no ncu report (%s)" % (name, (lines[-1] if lines else "empty")[:160]))
        continue
    rows = list(csv.reader(lines[start:start + 3]))
    head, row = rows[0], (rows[2] if len(rows) > 2 else [])
    d = {}
    for h, v in zip(head, row):
        try:
            d[h] = float(v.replace(",", ""))
        except ValueError:
            pass
    vals[name] = d
pre, suf = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
fixed = [("duration (us)", "gpu__time_duration.sum", 1e-3),
         ("instructions executed (M)", "smsp__inst_executed.sum", 1e-6),
         ("issue slots busy %", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
         ("achieved occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active", 1)]
stalls = {}
for d in vals.values():
    for k, x in d.items():
        if k.startswith(pre) and k.endswith(suf):
            stalls[k] = max(stalls.get(k, 0), x)
top = [k for k, x in sorted(stalls.items(), key=lambda t: -t[1]) if x >= 0.05][:8]
print()
print("| ncu, one launch at the target size | " + " | ".join(cols) + " |")
print("|---|" + "---:|" * len(cols))
def cell(d, k, scale):
    return "%.2f" % (d[k] * scale) if k in d else "n/a"
for label, k, scale in fixed:
    print("| %s | %s |" % (label, " | ".join(cell(vals[c], k, scale) for c in cols)))
for k in top:
    print("| stall: %s (warps per issue) | %s |" % (k[len(pre):-len(suf)],
          " | ".join(cell(vals[c], k, 1) for c in cols)))
print()
PY
done
echo "(files in $out)"
exit "$status"
