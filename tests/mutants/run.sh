#!/usr/bin/env bash
# tests/mutants/run.sh - legality mutants: generates near-miss kernels from
# the eligible samples (tests/mutants/mutate.py) and checks that kpipe
# refuses every one of them with the expected diagnostic id.
#
# For each mutant (run with --kernel NAME, so that the other kernels of a
# multi-kernel sample do not count), one run of
#   rewrite --format json -o OUT   (--no-verify) must exit 0 (3 = a parse
#                           error, not a refusal); its report's loop
#                           verdicts (the analysis analyze --format json
#                           gives, from the run that writes the rewrite)
#                           must list the mutated K-loop, refused, with the
#                           expected id among its reasons (when the
#                           mutation makes it no candidate at all, every
#                           candidate loop nested in it must carry the id);
#                           no loop of its lines may be pipelined (no
#                           kpipe-pipelined note there), the expected id
#                           must be among the diagnostics, and unless
#                           another K-loop of the kernel is eligible (two
#                           K-loops side by side), OUT must be the mutant
#                           unchanged (a file with nothing pipelined goes
#                           through as it was, exit 0).
# kpipe runs per mutant, side by side; tests/mutants/judge.py then checks
# all of them in one process (CI time).  Prints one FAIL line per broken
# expectation and the summary
#   mutants: N generated, N checked, N refused with the expected id, N rewritten
# Exits 1 on any failure.
#
# Environment: KPIPE (default build/kpipe), KPIPE_SOURCE_DIR (default: this
# checkout), MUTANTS_KEEP=DIR to write the mutants there and keep them,
# MUTANTS_JOBS=N mutants checked side by side (default: the CPUs, at most 4),
# MUTANTS_NVCC=1 to also compile every mutant with nvcc (sm_90) and fail on
# an error (slow: a few seconds a mutant), MUTANTS_STRIDE=N to check every
# Nth mutant only (the sanitizer build does: said on the output).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${KPIPE_SOURCE_DIR:=$(cd "$here/../.." && pwd)}"
: "${KPIPE:=$KPIPE_SOURCE_DIR/build/kpipe}"
case "$KPIPE" in
/*) ;;
*) KPIPE="$PWD/$KPIPE" ;;
esac
if [ ! -x "$KPIPE" ]; then
	echo "error: kpipe binary '$KPIPE' not found (build first, or set KPIPE)" >&2
	exit 2
fi
if ! command -v python3 > /dev/null; then
	echo "SKIP: python3 not found"
	exit 77
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/kpipe-mutants.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mdir="${MUTANTS_KEEP:-$work/mutants}"
mkdir -p "$mdir"

if ! python3 "$here/mutate.py" --samples "$KPIPE_SOURCE_DIR/samples" --out "$mdir" > "$work/generate.log"; then
	cat "$work/generate.log"
	echo "FAIL: mutate.py failed"
	exit 1
fi
grep -v '^mutant ' "$work/generate.log"

# Runs kpipe on one mutant (rewrite, and nvcc with MUTANTS_NVCC), its
# report, output and exit status in $work/run/FILE/; judge.py checks them
# all afterwards, in one process (CI time).  One kpipe run, not analyze
# and rewrite: the rewrite's JSON report holds the analysis's verdict on
# each loop (one parse less a mutant, CI time).
run_one() {
	local file="$1" kernel="$2"
	local m="$mdir/$file" w="$work/run/$file"
	mkdir -p "$w"
	if [ -n "${MUTANTS_NVCC:-}" ]; then
		nvcc -std=c++17 -arch=sm_90 -c -o /dev/null "$m" > "$w/nvcc.err" 2>&1
		echo $? > "$w/nvcc.rc"
	fi
	# --no-verify: a rewrite the CPU verifier rejects is written as the
	# input, with exit 0 and the refusals' ids, so verifying changes no
	# verdict here; it only costs a cold g++ build and runs (1 to 3 s) for
	# every mutant whose other K-loop is pipelined (CI time)
	"$KPIPE" rewrite --no-verify --format json --kernel "$kernel" "$m" -o "$w/out.cu" > "$w/r.json" 2> "$w/r.err"
	echo $? > "$w/r.rc"
}

jobs_max="${MUTANTS_JOBS:-$(nproc 2> /dev/null || echo 2)}"
[ "$jobs_max" -gt 4 ] && jobs_max=4
if [ -n "${MUTANTS_NVCC:-}" ] && ! command -v nvcc > /dev/null; then
	echo "error: MUTANTS_NVCC is set but nvcc is not on PATH" >&2
	exit 2
fi
stride="${MUTANTS_STRIDE:-1}"
case "$stride" in '' | *[!0-9]* | 0) echo "error: MUTANTS_STRIDE must be a positive integer" >&2; exit 2 ;; esac
[ "$stride" -gt 1 ] && echo "NOTE: MUTANTS_STRIDE=$stride: every ${stride}th mutant is checked, not all"
mkdir -p "$work/run"
: > "$work/selected"
n=0
i=0
while IFS=$'\t' read -r file kernel; do
	i=$((i + 1))
	[ $(((i - 1) % stride)) -eq 0 ] || continue
	n=$((n + 1))
	echo "$file" >> "$work/selected"
	run_one "$file" "$kernel" &
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
done < <(python3 -c '
import json, sys
for e in json.load(open(sys.argv[1])):
	print("\t".join(str(e[k]) for k in ("file", "kernel")))
' "$mdir/manifest.json")
wait

# every verdict, the FAIL lines and the summary line; exits 1 on a failure
python3 "$here/judge.py" "$mdir/manifest.json" "$mdir" "$work/run" "$work/selected" "${MUTANTS_NVCC:+1}"
