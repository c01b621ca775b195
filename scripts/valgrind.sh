#!/usr/bin/env bash
# valgrind.sh - the test suites under valgrind memcheck: invalid accesses,
# uses of uninitialised values and definite/indirect leaks are errors.
#
#   bash scripts/valgrind.sh            quick (over 20 min on 2 cores, see
#                                       docs/reliability.md): the canaries,
#                                       the unit tests but analyze and plan
#                                       (they parse CUDA in every test) and
#                                       three golden cases
#   bash scripts/valgrind.sh --full     every unit test, every golden case and
#                                       every tests/cli/*.sh script (hours:
#                                       libclang parses the CUDA headers in
#                                       about 45 s per file under valgrind)
# Options:
#   --build-dir DIR   use the kpipe and tests/test_* of DIR (a plain build;
#                     valgrind cannot run an ASan build) instead of building
#                     build-vg/ (-O1 -g, no sanitizers)
#   --golden GLOB...  (quick) the golden cases to run, default below
#   --no-unit         leave out the unit tests (the script suites only)
#   --keep            keep the valgrind logs (they are printed on failure)
#
# How: every Criterion executable runs as `valgrind ... test_X --jobs 1`;
# Criterion re-executes itself for each test's worker, so valgrind follows
# children (--trace-children=yes) except system tools and the CUDA toolkit
# (--trace-children-skip).  The script suites get KPIPE set to a wrapper
# that runs kpipe under the same valgrind; a batch's workers are forks,
# which valgrind always follows.  One log per process; the summary sums
# them per suite.  Two canaries run first, so that a setup that would not
# see a leak fails instead of passing: a Criterion test and a plain program
# (through the kpipe wrapper), each leaking on purpose, must be caught.
#
# Suppressions: cmake/valgrind.supp (libclang only; why in
# docs/reliability.md).  Prints one line per suite and exits 0 when every
# suite passed with no valgrind error, 1 otherwise, 77 (skipped) when
# valgrind is not installed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=quick
build_dir=""
keep=0
unit=1
# unit tests that parse CUDA with libclang once per test: --full only
slow_units=(analyze plan)
golden=('rewrite-matmul_32x32-cp-async' 'analyze-json-matmul_guarded' 'diff-multi_kernel_macros')
golden_set=0
while [ $# -gt 0 ]; do
	case "$1" in
	--full) mode=full ;;
	--quick) mode=quick ;;
	--build-dir) build_dir="$2"; shift ;;
	--keep) keep=1 ;;
	--no-unit) unit=0 ;;
	--golden)
		[ $golden_set = 1 ] || golden=()
		golden_set=1
		shift
		while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do
			golden+=("$1")
			shift
		done
		continue
		;;
	-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
	*) echo "valgrind.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done

if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP: valgrind is not installed (scripts/setup.sh installs it)"
	exit 77
fi

# --- the build ---------------------------------------------------------------
if [ -z "$build_dir" ]; then
	build_dir="$root/build-vg"
	echo "== building $build_dir (-O1 -g, no sanitizers)"
	cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="-O1 -g" \
		-DKPIPE_SANITIZE=OFF >"$build_dir.cmake.log" 2>&1 ||
		{ cat "$build_dir.cmake.log"; exit 1; }
	rm -f "$build_dir.cmake.log"
	cmake --build "$build_dir" -j"${JOBS:-1}" >/dev/null || exit 1
fi
build_dir="$(cd "$build_dir" && pwd)"
kpipe_real="$build_dir/kpipe"
[ -x "$kpipe_real" ] || { echo "valgrind.sh: no kpipe in $build_dir" >&2; exit 2; }
if grep -q 'KPIPE_SANITIZE:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
	echo "valgrind.sh: $build_dir is a sanitizer build; valgrind needs a plain one" >&2
	exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/kpipe-valgrind.XXXXXX")"
cleanup() { if [ $keep = 1 ]; then echo "logs kept in $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

skip='/bin/*,/usr/bin/*,/sbin/*,/usr/sbin/*,*/nvcc,*/cuobjdump,*/nvdisasm,*/ptxas,*/cicc'
skip+=',*/cudafe++,*/fatbinary,*/nvlink,*/bin2c,*/compute-sanitizer,*/nvim,/usr/local/cuda*'
vg_opts=(--tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=40
	--trace-children=yes "--trace-children-skip=$skip"
	"--suppressions=$root/cmake/valgrind.supp" --track-origins=no)

# The wrapper the script suites run as $KPIPE: logs go to $VG_LOG_DIR.
cat >"$work/kpipe-vg" <<EOF
#!/bin/sh
exec valgrind $(printf '%q ' "${vg_opts[@]}") --log-file="\${VG_LOG_DIR:-$work}/kpipe.%p.log" "\${KPIPE_VG_REAL:-$kpipe_real}" "\$@"
EOF
chmod +x "$work/kpipe-vg"

# Sums the logs of DIR: prints "ERRORS DEFINITE INDIRECT NPROC".
sum_logs() {
	cat "$1"/*.log 2>/dev/null | awk '
		/ERROR SUMMARY:/ { e += $4; n++ }
		/definitely lost:/ { gsub(",", "", $4); d += $4 }
		/indirectly lost:/ { gsub(",", "", $4); i += $4 }
		END { printf "%d %d %d %d\n", e, d, i, n }'
}

failed=0
summary=()
# run_suite NAME CMD...: runs CMD with VG_LOG_DIR set, then reports.
run_suite() {
	local name="$1"
	shift
	local dir="$work/logs/$name" t0=$SECONDS
	mkdir -p "$dir"
	VG_LOG_DIR="$dir" "$@" >"$dir/output.txt" 2>&1
	local rc=$?
	read -r errs def ind nproc < <(sum_logs "$dir")
	local counts
	counts="$(grep -Eo '[0-9]+ passed, [0-9]+ failed|Tested: [0-9]+ \| Passing: [0-9]+ \| Failing: [0-9]+' \
		"$dir/output.txt" | tail -n 1)"
	local verdict=PASS
	if [ $rc -ne 0 ] || [ "$errs" -ne 0 ] || [ "$def" -ne 0 ] || [ "$ind" -ne 0 ]; then
		verdict=FAIL
		failed=1
	fi
	local line
	line="$(printf '%-4s %-22s exit %-3s %-46s valgrind errors %s, definitely lost %s B, indirectly lost %s B (%s processes, %ss)' \
		"$verdict" "$name" "$rc" "${counts:-}" "$errs" "$def" "$ind" "$nproc" $((SECONDS - t0)))"
	echo "$line"
	summary+=("$line")
	if [ $verdict = FAIL ]; then
		tail -n 30 "$dir/output.txt" | sed 's/^/    | /'
		grep -l -E 'ERROR SUMMARY: [1-9]' "$dir"/*.log 2>/dev/null | head -n 3 | while read -r f; do
			echo "    --- $f"
			grep -v -E '^==[0-9]+== *$' "$f" | head -n 60 | sed 's/^/    | /'
		done
	fi
}

# --- canaries: the set-up must catch a deliberate leak -------------------------
echo "== canaries"
cat >"$work/canary_test.c" <<'EOF'
/* canary_test.c - a Criterion test that leaks on purpose */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
static void *keep;
Test(canary, leaks)
{
	char *p = malloc(4242);
	memset(p, 1, 4242);
	keep = p;
	keep = NULL; /* unreachable now: definitely lost */
	cr_expect_eq(p[0], 1);
}
EOF
cat >"$work/canary_prog.c" <<'EOF'
/* canary_prog.c - a program that leaks on purpose, run through the wrapper */
#include <stdlib.h>
#include <string.h>
int main(void)
{
	char *volatile p = malloc(1717);
	memset(p, 1, 1717);
	p = NULL;
	return 0;
}
EOF
canary_ok=1
cc_crit="$(pkg-config --cflags --libs criterion 2>/dev/null)"
# shellcheck disable=SC2086 # word splitting of the flags is the point
if cc -O0 -g -o "$work/canary_test" "$work/canary_test.c" $cc_crit &&
	cc -O0 -g -o "$work/canary_prog" "$work/canary_prog.c"; then
	mkdir -p "$work/logs/canary.criterion" "$work/logs/canary.wrapper"
	valgrind "${vg_opts[@]}" --log-file="$work/logs/canary.criterion/%p.log" \
		"$work/canary_test" --jobs 1 >/dev/null 2>&1
	read -r _ def _ _ < <(sum_logs "$work/logs/canary.criterion")
	if [ "$def" -ge 4242 ]; then
		echo "ok   canary: a leak in a Criterion test is caught ($def B definitely lost)"
	else
		echo "FAIL canary: a 4242-byte leak in a Criterion test was not seen (valgrind does not follow Criterion's workers)"
		canary_ok=0
	fi
	VG_LOG_DIR="$work/logs/canary.wrapper" KPIPE_VG_REAL="$work/canary_prog" "$work/kpipe-vg"
	crc=$?
	read -r _ def _ _ < <(sum_logs "$work/logs/canary.wrapper")
	if [ "$def" -ge 1717 ] && [ $crc -eq 99 ]; then
		echo "ok   canary: a leak through the kpipe wrapper is caught ($def B, exit 99)"
	else
		echo "FAIL canary: a 1717-byte leak through the wrapper was not seen (exit $crc, $def B)"
		canary_ok=0
	fi
else
	echo "FAIL canary: cannot compile the canaries (cc, criterion)"
	canary_ok=0
fi
[ $canary_ok = 1 ] || failed=1

# --- unit tests ---------------------------------------------------------------
[ $unit = 1 ] && echo "== unit tests"
for t in "$build_dir"/tests/test_*; do
	[ $unit = 1 ] && [ -x "$t" ] || continue
	short="$(basename "$t" | sed 's/^test_//')"
	name="unit.$short"
	if [ $mode = quick ] && [[ " ${slow_units[*]} " == *" $short "* ]]; then
		echo "skip $name (parses CUDA in every test: --full)"
		continue
	fi
	run_suite "$name" valgrind "${vg_opts[@]}" --log-file="$work/logs/$name/%p.log" \
		"$t" --jobs 1 --short-filename
done

# --- script suites through the wrapper -------------------------------------------
export KPIPE="$work/kpipe-vg" KPIPE_SOURCE_DIR="$root" KPIPE_BUILD_DIR="$build_dir"
export GOLDEN_TIMEOUT="${GOLDEN_TIMEOUT:-1800}" SAFETY_WAIT_S=900
if [ $mode = quick ]; then
	echo "== golden cases under valgrind: ${golden[*]}"
	run_suite golden "$root/tests/golden/run.sh" "${golden[@]}"
else
	echo "== golden (all cases) and tests/cli/*.sh under valgrind"
	run_suite golden "$root/tests/golden/run.sh"
	for s in "$root"/tests/cli/*.sh; do
		run_suite "cli.$(basename "$s" .sh)" bash "$s"
	done
fi

echo "== summary ($mode)"
printf '%s\n' "${summary[@]}"
exit $failed
