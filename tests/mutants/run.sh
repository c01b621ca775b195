#!/usr/bin/env bash
# tests/mutants/run.sh - legality mutants: generates near-miss kernels from
# the eligible samples (tests/mutants/mutate.py) and checks that kpipe
# refuses every one of them with the expected diagnostic id.
#
# For each mutant (run with --kernel NAME, so that the other kernels of a
# multi-kernel sample do not count):
#   analyze --format json   must exit 0 (3 = a parse error, not a refusal);
#                           the mutated K-loop must be reported, refused,
#                           and carry the expected id in `reasons` (when
#                           the mutation makes it no candidate at all, every
#                           candidate loop nested in it must carry the id);
#   rewrite -v -o OUT       must not pipeline the mutated K-loop (no
#                           "pipelined with" note in its lines) and must
#                           name the expected id; unless another K-loop of
#                           the kernel is eligible (two K-loops side by
#                           side), OUT must be the mutant unchanged (a
#                           file with nothing pipelined goes through as it
#                           was, exit 0); any exit but 0 fails.
# Prints one FAIL line per broken expectation and the summary
#   mutants: N generated, N refused with the expected id, N rewritten
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

# Checks one analyze document: argv = json expected kernel loop_line loop_end_line.
check_json() {
	python3 - "$@" << 'EOF'
import json, sys
path, expected, kernel, lb, le = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
try:
	doc = json.load(open(path))
except ValueError as e:
	print("analyze printed no JSON: %s" % e)
	sys.exit(1)
loops = [l for f in doc["files"] for k in f["kernels"] if k["name"] == kernel for l in k["loops"]]
inside = [l for l in loops if lb <= l["line"] <= le]
if not inside:
	print("no candidate loop reported in lines %d-%d" % (lb, le))
	sys.exit(1)
kloop = [l for l in inside if l["line"] == lb]
judged = kloop if kloop else inside
bad = []
for l in judged:
	ids = [r["id"] for r in l["reasons"]]
	if l["eligible"] or expected not in ids:
		bad.append("loop at line %d: eligible=%s ids=%s" % (l["line"], l["eligible"], ",".join(ids) or "none"))
for l in inside:
	if l["eligible"] and l not in judged:
		bad.append("nested loop at line %d is eligible" % l["line"])
if bad:
	print("; ".join(bad))
	sys.exit(1)
EOF
}

# Counts the kernel's eligible loops outside the mutated K-loop's lines:
# argv = json kernel loop_line loop_end_line.
others_eligible() {
	python3 - "$@" << 'EOF'
import json, sys
path, kernel, lb, le = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
try:
	doc = json.load(open(path))
except ValueError:
	print(0)
	sys.exit(0)
print(sum(1 for f in doc["files"] for k in f["kernels"] if k["name"] == kernel
	  for l in k["loops"] if l["eligible"] and not lb <= l["line"] <= le))
EOF
}

# Checks one mutant; prints FAIL lines, and "REWRITTEN" when kpipe rewrote it.
# Returns 0 when the mutant was refused as expected.
check_one() {
	local file="$1" kernel="$2" kind="$3" expected="$4" lb="$5" le="$6"
	local m="$mdir/$file" w="$work/run/$file" rc why ok=1
	mkdir -p "$w"
	"$KPIPE" analyze --format json --kernel "$kernel" "$m" > "$w/a.json" 2> "$w/a.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL $file: analyze exited $rc (3 = parse error, which is not a refusal)"
		sed 's/^/    /' "$w/a.err" | head -5
		ok=0
	elif ! why="$(check_json "$w/a.json" "$expected" "$kernel" "$lb" "$le")"; then
		echo "FAIL $file ($kind): expected $expected: $why"
		ok=0
	fi
	local others=0 hit
	[ "$ok" = 1 ] && others="$(others_eligible "$w/a.json" "$kernel" "$lb" "$le")"
	"$KPIPE" rewrite -v --kernel "$kernel" "$m" -o "$w/out.cu" > /dev/null 2> "$w/r.err"
	rc=$?
	# a "pipelined with" note at a line of the mutated K-loop
	hit="$(sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: note: pipelined with .*/\1/p' "$w/r.err" |
		awk -v b="$lb" -v e="$le" '$1 >= b && $1 <= e' | head -n 1)"
	if [ -n "$hit" ]; then
		echo "FAIL $file ($kind): REWRITTEN (the loop at line $hit was pipelined)"
		ok=0
	elif [ "$rc" -ne 0 ]; then
		echo "FAIL $file ($kind): rewrite exited $rc, expected 0"
		sed 's/^/    /' "$w/r.err" | head -5
		ok=0
	elif [ "$others" -eq 0 ] && ! cmp -s "$w/out.cu" "$m"; then
		# changed only when another K-loop of the kernel may be pipelined
		echo "FAIL $file ($kind): REWRITTEN (the output is not the mutant unchanged)"
		ok=0
	elif ! grep -q "\[$expected\]" "$w/r.err"; then
		echo "FAIL $file ($kind): rewrite did not report [$expected] on stderr"
		ok=0
	fi
	if [ -n "${MUTANTS_NVCC:-}" ] &&
		! nvcc -std=c++17 -arch=sm_90 -c -o /dev/null "$m" > "$w/nvcc.err" 2>&1; then
		echo "FAIL $file ($kind): nvcc rejects the mutant"
		sed 's/^/    /' "$w/nvcc.err" | head -5
		ok=0
	fi
	[ "$ok" = 1 ]
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
mkdir -p "$work/run" "$work/res"
n=0
i=0
while IFS=$'\t' read -r file kernel kind expected lb le; do
	i=$((i + 1))
	[ $(((i - 1) % stride)) -eq 0 ] || continue
	n=$((n + 1))
	(
		if check_one "$file" "$kernel" "$kind" "$expected" "$lb" "$le" > "$work/res/$file.log"; then
			echo ok > "$work/res/$file.status"
		else
			echo fail > "$work/res/$file.status"
		fi
	) &
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
done < <(python3 -c '
import json, sys
for e in json.load(open(sys.argv[1])):
	print("\t".join(str(e[k]) for k in ("file", "kernel", "kind", "expected", "loop_line", "loop_end_line")))
' "$mdir/manifest.json")
wait

total=0
refused=0
rewritten=0
failed=0
for st in "$work"/res/*.status; do
	[ -e "$st" ] || continue
	total=$((total + 1))
	log="${st%.status}.log"
	cat "$log"
	if [ "$(cat "$st")" = ok ]; then
		refused=$((refused + 1))
	else
		failed=$((failed + 1))
	fi
	grep -q 'REWRITTEN' "$log" && rewritten=$((rewritten + 1))
done
if [ "$total" -ne "$n" ]; then
	echo "FAIL: $n mutants listed, $total checked"
	failed=$((failed + 1))
fi

echo "mutants: $i generated, $total checked, $refused refused with the expected id, $rewritten rewritten"
if [ "$total" -eq 0 ] || [ "$failed" -ne 0 ]; then
	exit 1
fi
exit 0
