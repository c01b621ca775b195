#!/usr/bin/env bash
# tests/cli/run.sh - the command line's contract: exit codes, --help,
# --version, and how errors are reported; rewrite's outputs (stdout, -o,
# -i with a backup, --diff through patch/git apply, stdin, --dry-run),
# refusals that write nothing, idempotence, and bad or empty input.
# Inputs: samples/ and tests/fixtures/cu/.
#
# kpipe's exit codes (the CLI defines them; these tests hold it to them):
#   0  success
#   1  nothing to do / refused (check, --dry-run: something would change)
#   2  usage error (unknown option or command, bad arguments)
#   3  input or parse error (missing file, libclang could not parse)
#   4  validation failed
#   5  a required tool is missing (nvcc, cuobjdump)
#   6  validation incomplete
#
# Adding a test: write a function named test_<what>; it runs kpipe with
# `kp ARGS...` (optionally `kp_stdin FILE ARGS...`), then checks the result
# with the expect_* helpers below. Every test_* function runs, in the order
# written, from the repository root.
#
# Usage: tests/cli/run.sh [GLOB...]   (runs the tests whose name matches)
# Environment: KPIPE (default build/kpipe), KPIPE_SOURCE_DIR.
# Prints PASS/FAIL per test and "N passed, N failed"; exits 1 on a failure.
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

# shellcheck disable=SC2034 # not every code has a test yet
readonly EX_OK=0 EX_NOTHING=1 EX_USAGE=2 EX_INPUT=3 EX_VALIDATION=4 EX_NOTOOL=5 EX_INCOMPLETE=6

work="$(mktemp -d "${TMPDIR:-/tmp}/kpipe-cli.XXXXXX")"
trap 'rm -rf "$work"' EXIT
OUT="$work/stdout"
ERR="$work/stderr"
RC=0
CMD=""
problems=()

# --- helpers -------------------------------------------------------------

# kp ARGS...: run kpipe from the repository root; stdout in $OUT, stderr in
# $ERR, status in $RC.
kp() {
	kp_stdin /dev/null "$@"
}

# kp_stdin FILE ARGS...: the same, with FILE on standard input.
kp_stdin() {
	local in="$1"
	shift
	CMD="kpipe $*"
	(cd "$KPIPE_SOURCE_DIR" && timeout 300 "$KPIPE" "$@") <"$in" >"$OUT" 2>"$ERR"
	RC=$?
}

fail() {
	problems+=("$*")
}

expect_rc() {
	[ "$RC" = "$1" ] || fail "$CMD: exit status $RC, expected $1"
}

expect_stdout_contains() {
	grep -qF -- "$1" "$OUT" || fail "$CMD: stdout lacks '$1'"
}

expect_stderr_contains() {
	grep -qF -- "$1" "$ERR" || fail "$CMD: stderr lacks '$1'"
}

# Case-insensitive extended regex.
expect_stdout_matches() {
	grep -qEi -- "$1" "$OUT" || fail "$CMD: stdout does not match /$1/i"
}

expect_stderr_matches() {
	grep -qEi -- "$1" "$ERR" || fail "$CMD: stderr does not match /$1/i"
}

expect_stdout_empty() {
	[ ! -s "$OUT" ] || fail "$CMD: stdout not empty"
}

expect_stderr_empty() {
	[ ! -s "$ERR" ] || fail "$CMD: stderr not empty"
}

expect_file_absent() {
	[ ! -e "$1" ] || fail "$CMD: '$1' was created"
}

# expect_same FILE_A FILE_B WHAT: byte-identical files.
expect_same() {
	if [ ! -f "$1" ] || [ ! -f "$2" ]; then
		fail "$CMD: $3: '$1' or '$2' missing"
	elif ! cmp -s "$1" "$2"; then
		fail "$CMD: $3: '$1' and '$2' differ"
	fi
}

# A crash (signal) shows as a status above 128; sanitizers exit 86.
expect_no_crash() {
	if [ "$RC" -ge 128 ] || [ "$RC" = 86 ]; then
		fail "$CMD: crashed (exit status $RC)"
	fi
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault' "$ERR"; then
		fail "$CMD: sanitizer or crash report on stderr"
	fi
}

# The rewrite of samples/matmul_32x32.cu to stdout, computed once:
# $work/ref.cu.  Tests compare their output with it.
sample="samples/matmul_32x32.cu"
refused="samples/refused_smem_carry.cu"
fixtures="$KPIPE_SOURCE_DIR/tests/fixtures/cu"
reference() {
	if [ ! -s "$work/ref.cu" ]; then
		(cd "$KPIPE_SOURCE_DIR" && timeout 300 "$KPIPE" rewrite "$sample") >"$work/ref.cu" 2>/dev/null
	fi
	[ -s "$work/ref.cu" ] || fail "reference rewrite of $sample produced nothing"
}

# copy_sample DIR: DIR/matmul_32x32.cu with its launch description.
copy_sample() {
	mkdir -p "$1"
	cp "$KPIPE_SOURCE_DIR/$sample" "$KPIPE_SOURCE_DIR/${sample%.cu}.launch.json" "$1/"
}

file_mode() {
	stat -c %a "$1" 2>/dev/null || stat -f %Lp "$1"
}

# --- tests ---------------------------------------------------------------

test_help() {
	kp --help
	expect_rc $EX_OK
	expect_stdout_matches 'usage'
	expect_stdout_contains 'kpipe'
	expect_stderr_empty
}

test_version() {
	kp --version
	expect_rc $EX_OK
	expect_stdout_contains 'kpipe'
	expect_stdout_contains 'libclang'
	expect_stdout_contains 'CUDA'
	expect_stderr_empty
}

test_unknown_option() {
	kp --no-such-option
	expect_rc $EX_USAGE
	expect_stderr_contains 'error:'
	expect_stderr_contains 'no-such-option'
	expect_stdout_empty
}

test_unknown_command() {
	kp frobnicate
	expect_rc $EX_USAGE
	expect_stderr_contains 'error:'
	expect_stderr_contains 'frobnicate'
	expect_stdout_empty
}

test_missing_file() {
	kp analyze no/such/file.cu
	expect_rc $EX_INPUT
	expect_stderr_contains 'error: '
	expect_stderr_contains 'no/such/file.cu'
	expect_stdout_empty
}

# --- rewrite: outputs ------------------------------------------------------

test_rewrite_stdout() {
	kp rewrite "$sample"
	expect_rc $EX_OK
	expect_stdout_contains '__syncthreads'
	expect_stdout_contains 'kp_stage'
	expect_stdout_contains '__global__ void matmul_32x32'
	expect_stderr_empty
	# the host launcher is left alone
	expect_stdout_contains 'matmul_32x32<<<grid, block, 0, stream>>>(A, B, C, M, N, K);'
}

test_rewrite_is_deterministic() {
	reference
	kp rewrite "$sample"
	expect_rc $EX_OK
	expect_same "$OUT" "$work/ref.cu" "second run"
}

test_rewrite_output_file() {
	reference
	rm -f "$work/out.cu"
	local before
	before="$(cksum <"$KPIPE_SOURCE_DIR/$sample")"
	kp rewrite "$sample" -o "$work/out.cu"
	expect_rc $EX_OK
	expect_stdout_empty
	expect_stderr_empty
	expect_same "$work/out.cu" "$work/ref.cu" "-o output vs stdout"
	[ "$(cksum <"$KPIPE_SOURCE_DIR/$sample")" = "$before" ] || fail "$CMD: the input changed"
}

test_rewrite_output_dash_is_stdout() {
	reference
	kp rewrite "$sample" -o -
	expect_rc $EX_OK
	expect_same "$OUT" "$work/ref.cu" "-o - vs stdout"
	expect_file_absent "$KPIPE_SOURCE_DIR/-"
}

test_rewrite_output_same_as_input() {
	reference
	local d="$work/same"
	rm -rf "$d"
	copy_sample "$d"
	# spelled differently: -o names the input through ./
	CMD="kpipe rewrite $d/matmul_32x32.cu -o $d/./matmul_32x32.cu"
	(cd "$d" && timeout 300 "$KPIPE" rewrite "$d/matmul_32x32.cu" -o ./matmul_32x32.cu) \
		</dev/null >"$OUT" 2>"$ERR"
	RC=$?
	expect_rc $EX_OK
	expect_stdout_empty
	expect_stderr_empty
	expect_same "$d/matmul_32x32.cu" "$work/ref.cu" "input rewritten like -i"
	[ "$(find "$d" -type f | wc -l)" -eq 2 ] || fail "$CMD: extra files in $d: $(ls -A "$d")"
}

test_rewrite_in_place_backup() {
	reference
	local d="$work/inplace"
	rm -rf "$d"
	copy_sample "$d"
	chmod 640 "$d/matmul_32x32.cu"
	kp rewrite -i --backup-suffix=.orig "$d/matmul_32x32.cu"
	expect_rc $EX_OK
	expect_stdout_empty
	expect_stderr_empty
	expect_same "$d/matmul_32x32.cu.orig" "$KPIPE_SOURCE_DIR/$sample" "backup"
	expect_same "$d/matmul_32x32.cu" "$work/ref.cu" "rewritten file"
	local m
	m="$(file_mode "$d/matmul_32x32.cu")"
	[ "$m" = 640 ] || fail "$CMD: mode of the rewritten file is $m, expected 640"
	# no temporary files left behind
	[ "$(find "$d" -type f | wc -l)" -eq 3 ] || fail "$CMD: extra files in $d: $(ls -A "$d")"
}

test_rewrite_in_place_without_backup() {
	reference
	local d="$work/inplace2"
	rm -rf "$d"
	copy_sample "$d"
	kp rewrite --in-place "$d/matmul_32x32.cu"
	expect_rc $EX_OK
	expect_stdout_empty
	expect_same "$d/matmul_32x32.cu" "$work/ref.cu" "rewritten file"
	[ "$(find "$d" -type f | wc -l)" -eq 2 ] || fail "$CMD: extra files in $d: $(ls -A "$d")"
}

# apply_diff TOOL: the --diff of the sample applied in a copy of the tree.
apply_diff() {
	local tool="$1" t="$work/tree-$1"
	reference
	kp rewrite --diff "$sample"
	expect_rc $EX_OK
	expect_stderr_empty
	head -n 1 "$OUT" | grep -qxF -- "--- a/$sample" || fail "$CMD: first line is not '--- a/$sample'"
	sed -n 2p "$OUT" | grep -qxF -- "+++ b/$sample" || fail "$CMD: second line is not '+++ b/$sample'"
	rm -rf "$t"
	mkdir -p "$t/samples"
	cp "$KPIPE_SOURCE_DIR/$sample" "$t/samples/"
	cp "$OUT" "$work/sample.diff"
	local log="$work/apply.log"
	case "$tool" in
	patch) (cd "$t" && patch -p1 --batch <"$work/sample.diff") >"$log" 2>&1 ;;
	git) (cd "$t" && git apply "$work/sample.diff") >"$log" 2>&1 ;;
	esac || {
		fail "$CMD: $tool could not apply the diff: $(head -c 400 "$log")"
		return
	}
	expect_same "$t/$sample" "$work/ref.cu" "$tool result vs -o output"
	# kp_diff's hunks currently lack one trailing context line when 7+
	# unchanged lines follow (a known bug, see tests/unit/test_edit.c):
	# patch copes with fuzz.  Say so without failing.
	if grep -q 'fuzz' "$log"; then
		echo "  (note: patch needed fuzz: $(grep -c fuzz "$log") hunk(s))"
	fi
}

test_rewrite_diff_applies_with_patch() {
	if ! command -v patch >/dev/null; then
		echo "  (patch not installed: skipped)"
		return
	fi
	apply_diff patch
}

test_rewrite_diff_applies_with_git_apply() {
	if ! command -v git >/dev/null; then
		echo "  (git not installed: skipped)"
		return
	fi
	apply_diff git
}

test_rewrite_stdin() {
	reference
	kp_stdin "$KPIPE_SOURCE_DIR/$sample" rewrite - --assume-filename "$sample"
	expect_rc $EX_OK
	expect_stderr_empty
	expect_same "$OUT" "$work/ref.cu" "stdin vs file"
}

test_rewrite_stdin_in_place_is_usage() {
	kp_stdin "$KPIPE_SOURCE_DIR/$sample" rewrite - -i --assume-filename "$sample"
	expect_rc $EX_USAGE
	expect_stdout_empty
	expect_stderr_contains 'error:'
}

test_rewrite_exclusive_outputs() {
	kp rewrite -i --diff "$work/nothing.cu"
	expect_rc $EX_USAGE
	kp rewrite -o "$work/x.cu" --diff "$sample"
	expect_rc $EX_USAGE
	expect_file_absent "$work/x.cu"
	expect_stdout_empty
}

# --- rewrite: refusals and nothing to do ----------------------------------

test_rewrite_refused_sample() {
	cp "$KPIPE_SOURCE_DIR/$refused" "$work/refused.before"
	rm -f "$work/refused_out.cu"
	# nothing pipelined: -o gets the text unchanged (as clang-format
	# writes its output), exit 0; the reason is on stderr
	kp rewrite "$refused" -o "$work/refused_out.cu"
	expect_rc $EX_OK
	expect_stdout_empty
	expect_stderr_matches "^${refused//./\\.}:[0-9]+:[0-9]+: warning: .*\[kpipe-smem-carried\]$"
	expect_same "$work/refused_out.cu" "$work/refused.before" "-o with nothing pipelined"
	expect_same "$KPIPE_SOURCE_DIR/$refused" "$work/refused.before" "refused input"
	# stdout likewise (`kpipe rewrite f.cu > out.cu` never leaves out.cu empty)
	kp rewrite "$refused"
	expect_rc $EX_OK
	expect_same "$OUT" "$work/refused.before" "stdout with nothing pipelined"
	# --Werror: the warning makes it exit 1, the output is still written
	rm -f "$work/refused_out.cu"
	kp rewrite "$refused" --Werror -o "$work/refused_out.cu"
	expect_rc $EX_NOTHING
	expect_same "$work/refused_out.cu" "$work/refused.before" "--Werror -o"
	kp rewrite "$refused" --Werror --dry-run
	expect_rc $EX_NOTHING
	expect_stdout_contains 'nothing to pipeline'
}

test_rewrite_refused_in_place_untouched() {
	local d="$work/refused-inplace"
	rm -rf "$d"
	mkdir -p "$d"
	cp "$KPIPE_SOURCE_DIR/$refused" "$d/r.cu"
	local before
	before="$(cksum <"$d/r.cu")"
	kp rewrite -i --backup-suffix=.orig "$d/r.cu"
	expect_rc $EX_OK
	expect_stdout_empty
	expect_stderr_contains '[kpipe-smem-carried]'
	[ "$(cksum <"$d/r.cu")" = "$before" ] || fail "$CMD: the refused input changed"
	expect_file_absent "$d/r.cu.orig"
}

test_kernel_filter_names_nothing() {
	kp rewrite samples/matmul_template.cu --kernel nosuch -o "$work/nosuch.cu"
	expect_rc $EX_OK
	expect_stderr_contains "samples/matmul_template.cu: warning: --kernel nosuch names no kernel of this file or its project headers (they have: matmul_tiled<BM, BN, BK>) [kpipe-no-such-kernel]"
	expect_same "$work/nosuch.cu" "$KPIPE_SOURCE_DIR/samples/matmul_template.cu" "nothing selected: unchanged"
	kp rewrite samples/matmul_template.cu --kernel nosuch --Werror -o "$work/nosuch.cu"
	expect_rc $EX_NOTHING
	kp analyze samples/matmul_template.cu --kernel nosuch
	expect_stderr_contains "[kpipe-no-such-kernel]"
}

test_kernel_filter_instantiation_and_namespace() {
	# an instantiation as written selects its template
	kp rewrite samples/matmul_template.cu --kernel 'matmul_tiled<32, 32, 32>' -o "$work/inst.cu"
	expect_rc $EX_OK
	grep -q kp_stage "$work/inst.cu" || fail "$CMD: not pipelined"
	printf 'namespace ops { namespace gemm {\n%s\n} }\n' \
		"$(sed -n '/^__global__/,$p' "$KPIPE_SOURCE_DIR/samples/matmul_32x32.cu")" >"$work/ns.cu"
	for kn in ops::gemm::matmul_32x32 gemm::matmul_32x32 matmul_32x32; do
		kp rewrite "$work/ns.cu" --kernel "$kn" -o "$work/ns_out.cu"
		expect_rc $EX_OK
	done
	kp rewrite "$work/ns.cu" --kernel other::matmul_32x32 -o "$work/ns_out2.cu"
	expect_rc $EX_OK
	expect_stderr_contains "(they have: ops::gemm::matmul_32x32)"
}

test_export_fixes_makes_parents() {
	rm -rf "$work/fixdir"
	kp rewrite samples/matmul_32x32.cu --export-fixes "$work/fixdir/a/b.yaml" -o "$work/fx.cu"
	expect_rc $EX_OK
	[ -s "$work/fixdir/a/b.yaml" ] || fail "$CMD: no $work/fixdir/a/b.yaml"
}

test_rewrite_is_idempotent() {
	reference
	cp "$work/ref.cu" "$work/once.cu"
	rm -f "$work/twice.cu"
	kp rewrite "$work/once.cu" -o "$work/twice.cu"
	expect_rc $EX_OK
	expect_stdout_empty
	expect_stderr_contains '[kpipe-already-pipelined]'
	expect_same "$work/twice.cu" "$work/ref.cu" "a second rewrite changes nothing"
	expect_same "$work/once.cu" "$work/ref.cu" "pipelined input"
	# a remark is no warning: --Werror passes a pipelined file
	kp rewrite "$work/once.cu" --Werror -o "$work/twice.cu"
	expect_rc $EX_OK
}

test_rewrite_dry_run() {
	local d="$work/dry"
	rm -rf "$d"
	copy_sample "$d"
	kp rewrite --dry-run "$d/matmul_32x32.cu"
	expect_rc $EX_NOTHING
	expect_stdout_contains 'would pipeline'
	expect_same "$d/matmul_32x32.cu" "$KPIPE_SOURCE_DIR/$sample" "dry-run"
	[ "$(find "$d" -type f | wc -l)" -eq 2 ] || fail "$CMD: files written in $d: $(ls -A "$d")"
	# --dry-run writes nothing: with -o or -i it is a usage error, not ignored
	rm -f "$work/dry.cu"
	kp rewrite --dry-run "$sample" -o "$work/dry.cu"
	expect_rc $EX_USAGE
	expect_stderr_contains 'kpipe: error: --dry-run writes nothing'
	expect_file_absent "$work/dry.cu"
	kp rewrite --dry-run -i "$d/matmul_32x32.cu"
	expect_rc $EX_USAGE
	expect_same "$d/matmul_32x32.cu" "$KPIPE_SOURCE_DIR/$sample" "dry-run -i"
}

test_rewrite_dry_run_nothing_to_do() {
	kp rewrite --dry-run "$refused"
	expect_rc $EX_OK
	expect_stdout_contains 'nothing to pipeline'
}

test_rewrite_empty_file() {
	kp rewrite "$fixtures/empty.cu"
	expect_no_crash
	expect_rc $EX_OK
	expect_same "$OUT" "$fixtures/empty.cu" "empty file through"
	kp rewrite -v "$fixtures/empty.cu"
	expect_rc $EX_OK
	expect_stderr_contains 'nothing to pipeline'
	kp analyze "$fixtures/empty.cu"
	expect_no_crash
	expect_rc $EX_NOTHING
}

# --- rewrite: usage and input errors ---------------------------------------

test_rewrite_bad_variant() {
	kp rewrite --variant bogus "$sample"
	expect_rc $EX_USAGE
	expect_stdout_empty
	expect_stderr_contains 'bogus'
}

test_rewrite_bad_arch() {
	kp rewrite --arch sm_1 "$sample"
	expect_rc $EX_USAGE
	expect_stdout_empty
	expect_stderr_contains 'unknown target'
}

# Usage errors found after a file name or a compiler argument was taken
# (kp_cli_parse must free what it collected: the ASan build checks).
test_usage_errors_after_file() {
	kp analyze "$sample" --format xml
	expect_rc $EX_USAGE
	expect_stderr_contains 'xml'
	kp rewrite "$sample" -o "$work/a.cu" -o "$work/b.cu"
	expect_rc $EX_USAGE
	expect_file_absent "$work/a.cu"
	kp rewrite "$sample" --stages 1
	expect_rc $EX_USAGE
	kp rewrite "$sample" -DTILE=16 --no-such-option
	expect_rc $EX_USAGE
	kp rewrite "$sample" --variant
	expect_rc $EX_USAGE
	expect_stdout_empty
}

test_rewrite_two_files() {
	kp rewrite "$sample" samples/matmul_guarded.cu
	expect_rc $EX_USAGE
	expect_stdout_empty
	expect_stderr_contains 'error:'
}

test_rewrite_no_file() {
	kp rewrite
	expect_rc $EX_USAGE
	expect_stdout_empty
}

test_rewrite_missing_file() {
	kp rewrite no/such/file.cu
	expect_rc $EX_INPUT
	expect_stdout_empty
	expect_stderr_contains 'no/such/file.cu'
}

test_rewrite_syntax_error() {
	rm -f "$work/syn_out.cu"
	kp rewrite "$fixtures/syntax_error.cu" -o "$work/syn_out.cu"
	expect_rc $EX_INPUT
	expect_stdout_empty
	expect_stderr_contains "$fixtures/syntax_error.cu:5:16: error:"
	expect_file_absent "$work/syn_out.cu"
	kp analyze "$fixtures/syntax_error.cu"
	expect_rc $EX_INPUT
	expect_stderr_matches 'syntax_error\.cu:[0-9]+:[0-9]+: error:'
}

test_rewrite_binary_garbage() {
	# with NUL bytes
	head -c 4096 /dev/urandom >"$work/garbage.cu"
	printf '\0\0\0' >>"$work/garbage.cu"
	kp rewrite "$work/garbage.cu"
	expect_no_crash
	expect_rc $EX_INPUT
	expect_stdout_empty
	expect_stderr_contains 'error:'
	# without NUL bytes: invalid UTF-8 and nonsense tokens
	head -c 8192 /dev/urandom | tr -d '\000' >"$work/garbage2.cu"
	kp rewrite "$work/garbage2.cu"
	expect_no_crash
	expect_rc $EX_INPUT
	expect_stdout_empty
	kp analyze --format json "$work/garbage2.cu"
	expect_no_crash
	expect_rc $EX_INPUT
}

# --- analyze ---------------------------------------------------------------

test_analyze_json_parses() {
	if ! command -v python3 >/dev/null; then
		echo "  (python3 not installed: skipped)"
		return
	fi
	kp analyze --format json "$sample" "$refused" "$fixtures/eligible_16x16.cu"
	expect_rc $EX_OK
	expect_stderr_empty
	python3 -m json.tool "$OUT" >/dev/null 2>"$work/json.err" ||
		fail "$CMD: stdout is not JSON: $(head -c 300 "$work/json.err")"
	python3 - "$OUT" <<-'PY' || fail "$CMD: unexpected JSON content"
		import json, sys
		d = json.load(open(sys.argv[1]))
		files = d["files"]
		assert len(files) == 3, files
		loops = [l for f in files for k in f["kernels"] for l in k["loops"]]
		assert [l["eligible"] for l in loops] == [True, False, True], loops
	PY
}

test_analyze_json_empty_file() {
	kp analyze --format json "$fixtures/empty.cu"
	expect_rc $EX_NOTHING
	if command -v python3 >/dev/null; then
		python3 -m json.tool "$OUT" >/dev/null 2>&1 || fail "$CMD: stdout is not JSON"
	fi
}

test_analyze_refused_lists_id() {
	kp analyze "$refused"
	expect_rc $EX_OK
	expect_stdout_contains '[kpipe-smem-carried]'
	expect_stdout_contains 'not eligible'
}

test_analyze_eligible_fixture() {
	kp analyze "$fixtures/eligible_16x16.cu"
	expect_rc $EX_OK
	expect_stdout_contains '[eligible]'
	expect_stdout_contains 'k0 += TILE'
	expect_stderr_empty
}

test_version_lines() {
	kp --version
	expect_rc $EX_OK
	grep -qE '^kpipe [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\)$' "$OUT" ||
		fail "$CMD: no 'kpipe X.Y.Z (commit HASH)' line"
	grep -qE '^libclang: .*clang' "$OUT" || fail "$CMD: no 'libclang: ...' line"
	grep -qE '^CUDA: ' "$OUT" || fail "$CMD: no 'CUDA: ...' line"
	kp version
	expect_rc $EX_OK
	grep -qE '^libclang: ' "$OUT" || fail "$CMD: no 'libclang: ...' line"
}

# --- runner --------------------------------------------------------------

passed=0
failed=0
failures=()
# The test_* functions in the order this file defines them.
for t in $(grep -oE '^test_[A-Za-z0-9_]+\(\)' "${BASH_SOURCE[0]}" | tr -d '()'); do
	name="${t#test_}"
	if [ $# -gt 0 ]; then
		hit=0
		for pat in "$@"; do
			# shellcheck disable=SC2053 # the glob match is the point
			[[ "$name" == $pat ]] && hit=1
		done
		[ "$hit" = 1 ] || continue
	fi
	problems=()
	"$t"
	if [ ${#problems[@]} -eq 0 ]; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		for p in "${problems[@]}"; do
			echo "  $p"
		done
		if [ -s "$ERR" ]; then
			echo "  stderr:"
			head -n 20 "$ERR" | sed 's/^/    /'
		fi
		failed=$((failed + 1))
		failures+=("$name")
	fi
done

if [ "$failed" -gt 0 ]; then
	echo "failed tests: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
