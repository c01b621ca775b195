#!/usr/bin/env bash
# valgrind.sh - the test suites under valgrind memcheck: invalid accesses,
# uses of uninitialised values and definite/indirect leaks are errors.
#
#   bash scripts/valgrind.sh            quick (over 20 min on 2 cores, see
#                                       docs/reliability.md): the canaries,
#                                       the unit tests but analyze and plan
#                                       (they parse CUDA in every test) and
#                                       three golden cases
#   bash scripts/valgrind.sh --full     every suite CTest runs: every unit
#                                       test, golden, every tests/cli/*.sh,
#                                       mutants, adversarial, fuzz
#                                       regressions, nvcc and gpu scripts
#                                       (hours on 2 cores: libclang parses
#                                       the CUDA headers in 25 to 90 s per
#                                       kpipe run under valgrind)
# Options:
#   --suite NAME      run these suites only (repeatable; implies the full
#                     set's meaning of a suite): unit, unit.X, golden, cli,
#                     cli.X, mutants, adversarial, fuzz, nvcc, nvcc.X, gpu,
#                     gpu.X (X: a tests/unit/test_X.c or a script's name)
#   --jobs J          run J suites or shards side by side (default: CPUs)
#   --shards N        split each script suite into N shards run side by
#                     side: every shard runs the whole script, and a kpipe
#                     run goes under valgrind in one shard only, chosen by
#                     a checksum of its arguments without their
#                     directories and mktemp suffixes (the rest run
#                     natively).  The summary
#                     checks that every shard saw the same runs and that
#                     each ran under valgrind exactly once.  Default 1.  --shards NAME=N sets it for one
#                     suite (e.g. --shards 4 --shards golden=8).
#   --run-shards LIST run only these shards (comma-separated numbers from
#                     0), to finish on one machine what another started;
#                     the coverage check then covers only these shards
#   --build-dir DIR   use the kpipe and tests/test_* of DIR (a plain build;
#                     valgrind cannot run an ASan build) instead of building
#                     build-vg/ (-O1 -g, no sanitizers)
#   --golden GLOB...  (quick) the golden cases to run, default below
#   --no-unit         leave out the unit tests
#   --loader DIR      run kpipe under valgrind as DIR/ld-linux-x86-64.so.2
#                     --library-path DIR kpipe ...: a C library with the
#                     loader's symbols, for a machine whose own ld.so is
#                     stripped (valgrind cannot start there without
#                     libc6-dbg; bench/device_valgrind.sh)
#   --out DIR         also copy the summary and the logs of failed suites
#                     to DIR (the GPU machine's $OUT)
#   --keep            keep every valgrind log (printed on failure anyway)
#   --prior FILE      runs already seen clean under valgrind elsewhere: a
#                     TSV of suite, key, error count, command (as
#                     --clean-runs writes); a run whose
#                     suite and key are listed with 0 errors runs natively
#                     and counts as covered (the summary says how many)
#   --deadline S      stop at S seconds after the start: tasks not started
#                     by then are reported NRUN, running ones are stopped
#                     (exit 124) and fail; the summary is still printed
#   --clean-runs FILE write the runs seen clean (every process of the run
#                     ended normally with 0 errors and 0 lost bytes) as a
#                     --prior TSV; with --out, also OUT/clean-runs.tsv
#
# How: every Criterion executable runs as `valgrind ... test_X --jobs 1`;
# Criterion re-executes itself for each test's worker, so valgrind follows
# children (--trace-children=yes) except system tools and the CUDA toolkit
# (--trace-children-skip).  The script suites get KPIPE set to a wrapper
# that records each kpipe run (an atomic mkdir) and runs it under the same
# valgrind (children not traced: kpipe only execs the CUDA toolkit and the
# harnesses it builds; a batch's workers are forks, which valgrind always
# follows).  One log per process.  Under a file-size limit (`ulimit -f`, in
# tests/cli/safety.sh) a log file would hit the limit too, so such a run
# logs to a valgrind-listener socket instead.  Two canaries run first, so
# that a set-up that would not see a leak fails instead of passing: a
# Criterion test and a plain program (through the kpipe wrapper), each
# leaking on purpose, must be caught.
#
# Suppressions: cmake/valgrind.supp (libclang only; why in
# docs/reliability.md).  Prints one line per suite and exits 0 when every
# suite passed (or was skipped, shown as SKIP) with no valgrind error, 1
# otherwise, 77 (skipped) when valgrind is not installed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=quick
build_dir=""
keep=0
unit=1
jobs="$(nproc 2>/dev/null || echo 2)"
shards=1
shards_of=() # "NAME=N"
run_shards="" # ",K,K," or empty for all
out=""
loader=""
prior=""
deadline=0
clean_file=""
suites=()
# unit tests that parse CUDA with libclang once per test: --full only
slow_units=(analyze plan)
golden=('rewrite-matmul_32x32-cp-async' 'analyze-json-matmul_guarded' 'diff-multi_kernel_macros')
golden_set=0
while [ $# -gt 0 ]; do
	case "$1" in
	--full) mode=full ;;
	--quick) mode=quick ;;
	--suite) mode=full; suites+=("$2"); shift ;;
	--jobs) jobs="$2"; shift ;;
	--shards)
		case "$2" in
		*=*) shards_of+=("$2") ;;
		*) shards="$2" ;;
		esac
		shift
		;;
	--build-dir) build_dir="$2"; shift ;;
	--out) out="$2"; shift ;;
	--deadline) deadline="$2"; shift ;;
	--clean-runs) clean_file="$2"; shift ;;
	--run-shards) run_shards=",$2,"; shift ;;
	--prior) prior="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift ;;
	--loader) loader="$(cd "$2" && pwd)" || exit 2; shift ;;
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
	-h | --help) sed -n '2,61p' "$0"; exit 0 ;;
	*) echo "valgrind.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
case "$jobs$shards$deadline$(printf '%s' "${shards_of[@]#*=}")" in *[!0-9]*) echo "valgrind.sh: --jobs and --shards take numbers" >&2; exit 2 ;; esac
[ "$jobs" -ge 1 ] && [ "$shards" -ge 1 ] || { echo "valgrind.sh: --jobs and --shards must be at least 1" >&2; exit 2; }

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
cleanup() {
	# the listeners of tasks still running when the script is stopped
	# (this run's only: another valgrind.sh may be running beside it)
	pkill -f "valgrind-listener-kpipe-vg-${work##*/}-port" 2>/dev/null
	if [ $keep = 1 ]; then echo "logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

skip='/bin/*,/usr/bin/*,/sbin/*,/usr/sbin/*,*/nvcc,*/cuobjdump,*/nvdisasm,*/ptxas,*/cicc'
skip+=',*/cudafe++,*/fatbinary,*/nvlink,*/bin2c,*/compute-sanitizer,*/nvim,/usr/local/cuda*'
# shellcheck disable=SC2054 # the commas are inside option values
vg_opts=(--tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=40
	"--suppressions=$root/cmake/valgrind.supp" --track-origins=no)
vg_unit=("${vg_opts[@]}" --trace-children=yes "--trace-children-skip=$skip")

# The wrapper the script suites run as $KPIPE.  VG_LOG_DIR: where the logs
# go; VG_SHARD/VG_SHARDS: which runs go under valgrind; VG_PORT: the
# listener for runs under a file-size limit.
cat >"$work/kpipe-vg" <<EOF
#!/bin/sh
# kpipe under valgrind memcheck (written by scripts/valgrind.sh)
d="\${VG_LOG_DIR:-$work}"
mkdir -p "\$d/runs" 2>/dev/null
# the run's key: its arguments with directories and mktemp's random
# suffixes stripped (temporary names differ from shard to shard), so that
# every shard gives a run the same key whatever the order the runs come in
key=\$(for a in "\$@"; do printf '%s\\n' "\${a##*/}"; done |
	sed -E 's/\\.[A-Za-z0-9]{6,10}\$/.X/' | cksum | cut -d' ' -f1)
n=0
while ! mkdir "\$d/runs/\$key.\$n" 2>/dev/null; do n=\$((n + 1)); done
real="\${KPIPE_VG_REAL:-$kpipe_real}"
if [ \$((key % \${VG_SHARDS:-1})) -ne \${VG_SHARD:-0} ]; then
	exec "\$real" "\$@"
fi
if [ -n "\${VG_PRIOR:-}" ] && grep -q "^\${VG_SUITE:-}	\$key	0	" "\$VG_PRIOR"; then
	: >"\$d/runs/\$key.\$n/prior"
	exec "\$real" "\$@"
fi
: >"\$d/runs/\$key.\$n/vg"
log="--log-file=\$d/kpipe.\$key.\$n.%p.log"
if [ "\$(ulimit -f)" != unlimited ] && [ -n "\${VG_PORT:-}" ]; then
	log="--log-socket=127.0.0.1:\$VG_PORT"
fi
exec valgrind $(printf '%q ' "${vg_opts[@]}") --trace-children=no "\$log" ${loader:+$(printf '%q ' "$loader/ld-linux-x86-64.so.2" --library-path "$loader")}"\$real" "\$@"
EOF
chmod +x "$work/kpipe-vg"

# Sums the logs of DIR: prints "ERRORS DEFINITE INDIRECT NPROC".  The
# listener's lines start with "(N) ".
sum_logs() {
	cat "$1"/*.log 2>/dev/null | sed -E 's/^\([0-9]+\) //' | awk '
		/ERROR SUMMARY:/ { e += $4; n++ }
		/definitely lost:/ { gsub(",", "", $4); d += $4 }
		/indirectly lost:/ { gsub(",", "", $4); i += $4 }
		END { printf "%d %d %d %d\n", e, d, i, n }'
}

# start_listener DIR PORT: a valgrind-listener writing DIR/listener.log;
# prints its pid.
start_listener() {
	(exec -a "valgrind-listener-kpipe-vg-${work##*/}-port-$2" valgrind-listener "$2" \
		>"$1/listener.log" 2>&1) &
	echo $!
}
stop_listener() { # PID
	sleep 1
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# --- canaries: the set-up must catch a deliberate leak -------------------------
failed=0
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
# wrapper_canary DIR RC WHAT: canary_prog's 1717-byte leak must be in DIR's
# logs and the wrapper must have exited with valgrind's error code.
wrapper_canary() {
	local def
	read -r _ def _ _ < <(sum_logs "$1")
	if [ "$def" -ge 1717 ] && [ "$2" -eq 99 ]; then
		echo "ok   canary: $3 is caught ($def B, exit 99)"
	else
		echo "FAIL canary: $3: the 1717-byte leak was not seen (exit $2, $def B)"
		canary_ok=0
	fi
}
mkdir -p "$work/logs/canary.criterion" "$work/logs/canary.wrapper"
if [ $unit = 1 ]; then
	cc_crit="$(pkg-config --cflags --libs criterion 2>/dev/null)"
	# shellcheck disable=SC2086 # word splitting of the flags is the point
	if cc -O0 -g -o "$work/canary_test" "$work/canary_test.c" $cc_crit; then
		valgrind "${vg_unit[@]}" --log-file="$work/logs/canary.criterion/%p.log" \
			"$work/canary_test" --jobs 1 >/dev/null 2>&1
		read -r _ def _ _ < <(sum_logs "$work/logs/canary.criterion")
		if [ "$def" -ge 4242 ]; then
			echo "ok   canary: a leak in a Criterion test is caught ($def B definitely lost)"
		else
			echo "FAIL canary: a 4242-byte leak in a Criterion test was not seen (valgrind does not follow Criterion's workers)"
			canary_ok=0
		fi
	else
		echo "FAIL canary: cannot compile the Criterion canary (cc, criterion)"
		canary_ok=0
	fi
fi
if cc -O0 -g -o "$work/canary_prog" "$work/canary_prog.c"; then
	VG_LOG_DIR="$work/logs/canary.wrapper" KPIPE_VG_REAL="$work/canary_prog" "$work/kpipe-vg"
	wrapper_canary "$work/logs/canary.wrapper" $? "a leak through the kpipe wrapper"
	# the same under a file-size limit, logged through a listener
	if command -v valgrind-listener >/dev/null 2>&1; then
		d="$work/logs/canary.ulimit"
		mkdir -p "$d"
		port=$((20000 + $$ % 40000))
		lpid=$(start_listener "$d" $port)
		sleep 0.5
		(ulimit -f 1 && VG_LOG_DIR="$d" VG_PORT=$port KPIPE_VG_REAL="$work/canary_prog" "$work/kpipe-vg")
		crc=$?
		stop_listener "$lpid"
		wrapper_canary "$d" $crc "a leak under 'ulimit -f 1', through the listener,"
	else
		echo "FAIL canary: valgrind-listener is missing (runs under 'ulimit -f' could not log)"
		canary_ok=0
	fi
else
	echo "FAIL canary: cannot compile the wrapper canary (cc)"
	canary_ok=0
fi
[ $canary_ok = 1 ] || failed=1

# --- the tasks ---------------------------------------------------------------------
# One task per unit executable and per script suite (or shard of one):
# "NAME SHARD SHARDS KIND ARG", KIND unit (ARG the executable) or script
# (ARG the script; golden's quick cases come from $golden).
tasks=()
wanted() { # NAME: is the suite selected?
	[ ${#suites[@]} -eq 0 ] && return 0
	local s
	for s in "${suites[@]}"; do
		[ "$s" = "$1" ] || [ "$s" = "${1%%.*}" ] && return 0
	done
	return 1
}
add_script() { # NAME SCRIPT
	local n=$shards k s
	for s in "${shards_of[@]}"; do
		[ "${s%%=*}" = "$1" ] && n="${s#*=}"
	done
	[ "$n" -ge 1 ] || n=1
	for ((k = 0; k < n; k++)); do
		[ -n "$run_shards" ] && [[ "$run_shards" != *",$k,"* ]] && continue
		tasks+=("$1 $k $n script $2")
	done
}
if [ $unit = 1 ]; then
	for t in "$build_dir"/tests/test_*; do
		[ -x "$t" ] || continue
		short="$(basename "$t" | sed 's/^test_//')"
		wanted "unit.$short" || continue
		if [ $mode = quick ] && [[ " ${slow_units[*]} " == *" $short "* ]]; then
			echo "skip unit.$short (parses CUDA in every test: --full)"
			continue
		fi
		tasks+=("unit.$short 0 1 unit $t")
	done
fi
if [ $mode = quick ]; then
	add_script golden "$root/tests/golden/run.sh"
else
	wanted golden && add_script golden "$root/tests/golden/run.sh"
	for s in "$root"/tests/cli/*.sh; do
		name="cli.$(basename "$s" .sh)"
		wanted "$name" && add_script "$name" "$s"
	done
	wanted mutants && add_script mutants "$root/tests/mutants/run.sh"
	wanted adversarial && add_script adversarial "$root/tests/adversarial/run.sh"
	wanted fuzz.regressions && add_script fuzz.regressions "$root/tests/fuzz/run_regressions.sh"
	for label in nvcc gpu; do
		for s in "$root"/tests/$label/*.sh; do
			name="$label.$(basename "$s" .sh)"
			wanted "$name" && add_script "$name" "$s"
		done
	done
fi

# The script suites' environment: kpipe through the wrapper, time limits
# that allow for valgrind's slowdown.
export KPIPE="$work/kpipe-vg" KPIPE_SOURCE_DIR="$root" KPIPE_BUILD_DIR="$build_dir"
export GOLDEN_TIMEOUT="${GOLDEN_TIMEOUT:-3600}" SAFETY_WAIT_S=1800
export KPIPE_ADV_TIMEOUT=3600 KPIPE_ADV_BIG_TIMEOUT=7200 KPIPE_REGRESSION_TIMEOUT=3600
export KPIPE_TUNE_LIMIT_S=3600
export MUTANTS_JOBS="${MUTANTS_JOBS:-$jobs}"

# run_task I NAME SHARD SHARDS KIND ARG: runs one task, writes its result
# line "RC SECONDS" to $work/done/I.
run_task() {
	local i="$1" name="$2" k="$3" n="$4" kind="$5" arg="$6"
	local dir="$work/logs/$name.$k" t0=$SECONDS rc port=""
	mkdir -p "$dir"
	local lim=() # what is left of --deadline
	[ "$deadline" -gt 0 ] && lim=(timeout -k 10 $((deadline - SECONDS > 1 ? deadline - SECONDS : 1)))
	if [ "$kind" = unit ]; then
		"${lim[@]}" valgrind "${vg_unit[@]}" --log-file="$dir/%p.log" "$arg" --jobs 1 --short-filename \
			>"$dir/output.txt" 2>&1
		rc=$?
	else
		# a listener for the runs under a file-size limit (safety.sh)
		local lpid=""
		if command -v valgrind-listener >/dev/null 2>&1; then
			port=$((20000 + (i * 37 + $$ + 1) % 40000))
			lpid=$(start_listener "$dir" $port)
		fi
		local argv=("$arg")
		[ $mode = quick ] && [ "$name" = golden ] && argv+=("${golden[@]}")
		(cd "$root" && VG_LOG_DIR="$dir" VG_SHARD=$k VG_SHARDS=$n VG_PORT="$port" \
			VG_SUITE="$name" VG_PRIOR="$prior" \
			"${lim[@]}" bash "${argv[@]}") >"$dir/output.txt" 2>&1 </dev/null
		rc=$?
		[ -n "$lpid" ] && stop_listener "$lpid"
	fi
	echo "$rc $((SECONDS - t0))" >"$work/done/$i"
}

mkdir -p "$work/done"
echo "== ${#tasks[@]} tasks, $jobs side by side, script suites in $shards shard(s)"
running=0
for i in "${!tasks[@]}"; do
	read -r name k n kind arg <<<"${tasks[$i]}"
	while [ $running -ge "$jobs" ]; do
		wait -n
		running=$((running - 1))
	done
	if [ "$deadline" -gt 0 ] && [ $SECONDS -ge "$deadline" ]; then
		continue # never started: reported NRUN
	fi
	run_task "$i" "$name" "$k" "$n" "$kind" "$arg" &
	running=$((running + 1))
done
wait

# --- the summary, one line per suite ------------------------------------------------
summary=()
report() { # NAME: sums the suite's shards
	local name="$1" dirs=() rcs="" secs=0 verdict=PASS ti tname tk trc tsecs
	for ti in "${!tasks[@]}"; do
		read -r tname tk _ <<<"${tasks[$ti]}"
		[ "$tname" = "$name" ] || continue
		dirs+=("$work/logs/$name.$tk")
		trc=- tsecs=0
		[ -f "$work/done/$ti" ] && read -r trc tsecs <"$work/done/$ti"
		rcs="${rcs:+$rcs,}$trc"
		[ "${tsecs:-0}" -gt "$secs" ] 2>/dev/null && secs=$tsecs
	done
	local errs=0 def=0 ind=0 nproc=0 d se sd si sp
	for d in "${dirs[@]}"; do
		read -r se sd si sp < <(sum_logs "$d")
		errs=$((errs + se)) def=$((def + sd)) ind=$((ind + si)) nproc=$((nproc + sp))
	done
	# kpipe runs: each shard must have seen the same runs (keys), and each
	# run must have gone under valgrind in exactly one shard.
	local runs="" first=-1 cnt vgd=0 pri=0 gap=0 ref="" sig
	if [ "${name%%.*}" != unit ]; then
		for d in "${dirs[@]}"; do
			cnt=$(find "$d/runs" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)
			sig=$(ls "$d/runs" 2>/dev/null | sort | cksum)
			[ $first = -1 ] && first=$cnt ref=$sig
			[ "$sig" = "$ref" ] || gap=1
			vgd=$((vgd + $(find "$d/runs" -name vg 2>/dev/null | wc -l)))
			pri=$((pri + $(find "$d/runs" -name prior 2>/dev/null | wc -l)))
		done
		vgd=$((vgd + pri))
		[ "$vgd" = "$first" ] || [ -n "$run_shards" ] || gap=1
		runs="kpipe runs $vgd/$first under valgrind"
		[ $pri -gt 0 ] && runs="$runs ($pri of them clean in --prior)"
		[ -n "$run_shards" ] && runs="$runs (shards${run_shards//,/ }only)"
		[ $gap = 1 ] && runs="$runs (shards disagree: NOT all covered)"
	fi
	local counts
	counts="$(cat "${dirs[@]/%//output.txt}" 2>/dev/null |
		grep -Eo '[0-9]+ passed, [0-9]+ failed|Tested: [0-9]+ \| Passing: [0-9]+ \| Failing: [0-9]+|mutants: [0-9]+ generated' |
		tail -n 1)"
	if [[ "$rcs" =~ ^-(,-)*$ ]]; then
		verdict=NRUN # not started before the deadline
		failed=1
	elif [[ "$rcs" =~ ^77(,77)*$ ]]; then
		verdict=SKIP
		counts="$(grep -h -m1 -E '^SKIP' "${dirs[@]/%//output.txt}" 2>/dev/null | head -n 1)"
	elif [[ ! "$rcs" =~ ^0(,0)*$ ]] || [ $errs -ne 0 ] || [ $def -ne 0 ] || [ $ind -ne 0 ] || [ $gap = 1 ]; then
		verdict=FAIL
		failed=1
	fi
	local line
	line="$(printf '%-4s %-24s exit %-8s %-40s valgrind errors %s, definitely lost %s B, indirectly lost %s B (%s processes%s, %ss)' \
		"$verdict" "$name" "$rcs" "${counts:-}" "$errs" "$def" "$ind" "$nproc" "${runs:+; $runs}" "$secs")"
	echo "$line"
	summary+=("$line")
	if [ $verdict = FAIL ]; then
		for d in "${dirs[@]}"; do
			tail -n 30 "$d/output.txt" | sed 's/^/    | /'
			grep -l -E 'ERROR SUMMARY: [1-9]' "$d"/*.log 2>/dev/null | head -n 3 | while read -r f; do
				echo "    --- $f"
				grep -v -E '^(\([0-9]+\) )?==[0-9]+== *$' "$f" | head -n 60 | sed 's/^/    | /'
			done
			[ -n "$out" ] && mkdir -p "$out/failed" && cp -r "$d" "$out/failed/" 2>/dev/null
		done
	fi
}
echo "== summary ($mode)"
seen=" "
for i in "${!tasks[@]}"; do
	read -r name _ <<<"${tasks[$i]}"
	[[ "$seen" == *" $name "* ]] && continue
	seen+="$name "
	report "$name"
done
if [ -n "$out" ]; then
	mkdir -p "$out"
	printf '%s\n' "${summary[@]}" >"$out/valgrind-summary.txt"
fi

# --- the runs seen clean, for --prior elsewhere --------------------------------
# A run (suite, key) is clean when every log of it (every N of KEY.N, every
# forked worker) has an error summary of 0, no definitely or indirectly lost
# bytes, and no "terminating with default action of signal" (a run stopped
# at the deadline, or killed by a test, is left out: its heap was in use).
# Runs under a file-size limit log to the listener and are not listed.
clean_runs() {
	local ti tname tk
	for ti in "${!tasks[@]}"; do
		read -r tname tk _ <<<"${tasks[$ti]}"
		[ "${tname%%.*}" = unit ] && continue
		find "$work/logs/$tname.$tk" -maxdepth 1 -name 'kpipe.*.log' 2>/dev/null |
			awk -v suite="$tname" '
			{ f = $0; sub(/.*\//, "", f); split(f, p, "."); k = p[2]
				lines = 0; summed = 0
				while ((getline l < $0) > 0) {
					lines++
					if (l ~ /Command: / && !(k in cmd)) { c = l; sub(/^==[0-9]+== Command: /, "", c)
						sub(/^.*ld-linux-x86-64[.]so[.]2 --library-path [^ ]+ /, "", c)
						sub(/^[^ ]*kpipe /, "", c); cmd[k] = c }
					split(l, w, " ")
					if (l ~ /ERROR SUMMARY:/) { summed = 1; if (w[4] + 0 != 0) bad[k] = 1 }
					if (l ~ /definitely lost:|indirectly lost:/) { v = w[4]; gsub(",", "", v); if (v + 0 != 0) bad[k] = 1 }
					if (l ~ /terminating with default action of signal/) bad[k] = 1
				}
				close($0)
				# a fork that exec()s a tool (nvcc, a harness) leaves only
				# the header (--trace-children=no); any other log without a
				# summary is a process that did not end normally
				if (summed) sums[k]++
				else if (lines > 6) bad[k] = 1 }
			END { for (k in sums) if (!(k in bad))
				printf "%s\t%s\t0\t%s\n", suite, k, cmd[k] }'
	done | sort -u
}
if [ -n "$clean_file" ] || [ -n "$out" ]; then
	clean_runs >"$work/clean-runs.tsv"
	[ -n "$clean_file" ] && cp "$work/clean-runs.tsv" "$clean_file"
	[ -n "$out" ] && cp "$work/clean-runs.tsv" "$out/clean-runs.tsv"
	echo "== $(wc -l <"$work/clean-runs.tsv") clean runs written${clean_file:+ to $clean_file}${out:+ and $out/clean-runs.tsv}"
fi
exit $failed
