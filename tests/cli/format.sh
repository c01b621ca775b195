#!/usr/bin/env bash
# format.sh - the code kpipe writes follows the project's .clang-format
# (#18; src/rewrite/format.c, rewrite --format-style):
#   - in a project whose .clang-format the source already follows, the
#     rewritten file is clang-format-clean as a whole but for kpipe's own
#     `//` comment lines, which are left as written (a long `// kpipe:`
#     reason stays one line: see below), and the lines kpipe did not touch
#     are the user's;
#   - --format-style=none keeps kpipe's own layout (then not clean), and
#     equals the output with no .clang-format above the file;
#   - --format-style=llvm formats without a .clang-format;
#   - the replacements of --export-fixes carry the formatted code: applied
#     to the input they give the same text as -o;
#   - DisableFormat: true: nothing formatted, no clang-format needed;
#   - no clang-format to run (KPIPE_CLANG_FORMAT names a missing one): the
#     remark kpipe-not-formatted, and the unformatted rewrite is written.
# Exit 77 when no clang-format is installed.  Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cf="$(command -v clang-format-19 || command -v clang-format || true)"
if [ -z "$cf" ]; then
	echo "SKIP: no clang-format (scripts/setup.sh installs clang-format-19)"
	exit 77
fi
kp_tmpdir format
export KPIPE_CLANG_FORMAT="$cf"
p="$tmp/proj"
mkdir -p "$p/src"
printf 'BasedOnStyle: LLVM\nIndentWidth: 2\nColumnLimit: 80\n' >"$p/.clang-format"
# the user's code, formatted in the project's style first
"$cf" --style="file:$p/.clang-format" "$root/samples/matmul_32x32.cu" >"$p/src/k.cu"
check "the input follows the style" "$cf" --dry-run --Werror "$p/src/k.cu"

# clean_but_comments FILE [STYLE]: clang-format has nothing to change in
# FILE but kpipe's own comment lines (`// kpipe...`), left as written
clean_but_comments() {
	local f="$1" style="${2:-file}" lines
	lines=$("$cf" --style="$style" --dry-run "$f" 2>&1 | sed -n "s|^$f:\([0-9]*\):.*|\1|p" | sort -u)
	for n in $lines; do
		sed -n "${n}p" "$f" | grep -qE '^[[:space:]]*// kpipe' || return 1
	done
}
(cd "$p/src" && "$kpipe" rewrite k.cu -o out.cu --export-fixes fixes.yaml) 2>"$tmp/e"
check "rewrite: exit 0" test $? -eq 0
check "rewrite: pipelined" grep -q 'kp_stage' "$p/src/out.cu"
check "rewrite: the whole file is clang-format-clean but kpipe's comment lines" \
	clean_but_comments "$p/src/out.cu"
check "rewrite: two-space indentation of the rewritten loop" grep -q '^    int kp_stage = 0;$' "$p/src/out.cu"
check "rewrite: no remark" bash -c "! grep -q kpipe-not-formatted '$tmp/e'"
# lines kpipe did not write are the user's: the host launcher is untouched
check "rewrite: the host code untouched" bash -c \
	"diff <(sed -n '/^cudaError_t launch/,\$p' '$p/src/k.cu') <(sed -n '/^cudaError_t launch/,\$p' '$p/src/out.cu')"

python3 - "$p/src/k.cu" "$p/src/fixes.yaml" "$p/src/applied.cu" <<'PY'
import sys, yaml
src = open(sys.argv[1], "rb").read()
doc = yaml.safe_load(open(sys.argv[2]))
reps = [r for d in doc["Diagnostics"] for r in d["DiagnosticMessage"].get("Replacements", [])]
reps.sort(key=lambda r: r["Offset"], reverse=True)
for r in reps:
    src = src[:r["Offset"]] + r["ReplacementText"].encode() + src[r["Offset"] + r["Length"]:]
open(sys.argv[3], "wb").write(src)
PY
check "export-fixes: the replacements give the formatted text" cmp -s "$p/src/applied.cu" "$p/src/out.cu"

(cd "$p/src" && "$kpipe" rewrite k.cu -o none.cu --format-style=none) 2>/dev/null
check "--format-style=none: pipelined" grep -q 'kp_stage' "$p/src/none.cu"
check "--format-style=none: kpipe's layout (not clean)" bash -c "! '$cf' --dry-run --Werror '$p/src/none.cu' 2>/dev/null"
mkdir -p "$tmp/bare"
cp "$p/src/k.cu" "$tmp/bare/k.cu"
(cd "$tmp/bare" && "$kpipe" rewrite k.cu -o out.cu) 2>/dev/null
check "no .clang-format: the same as --format-style=none" cmp -s "$tmp/bare/out.cu" "$p/src/none.cu"
(cd "$tmp/bare" && "$kpipe" rewrite k.cu -o llvm.cu --format-style=llvm) 2>/dev/null
check "--format-style=llvm: clean in LLVM style but kpipe's comment lines" \
	clean_but_comments "$tmp/bare/llvm.cu" llvm
check "--format-style=none: clang-format would change code lines, not only comments" \
	bash -c "$(declare -f clean_but_comments); cf='$cf'; ! clean_but_comments '$p/src/none.cu'"

(cd "$p/src" && KPIPE_CLANG_FORMAT="$tmp/no-such-clang-format" "$kpipe" rewrite k.cu -o missing.cu) 2>"$tmp/e"
check "no clang-format: exit 0" test $? -eq 0
check "no clang-format: remark kpipe-not-formatted" grep -q "remark: not formatted in the style of .*/proj/.clang-format: no clang-format on PATH.*\[kpipe-not-formatted\]" "$tmp/e"
check "no clang-format: the unformatted rewrite" cmp -s "$p/src/missing.cu" "$p/src/none.cu"

# stdin named as a file that does not exist (an editor's new buffer): the
# style of the directory it names, not of the current directory
"$kpipe" rewrite - --assume-filename "$p/src/new.cu" <"$p/src/k.cu" >"$tmp/stdin.cu" 2>/dev/null
check "stdin, --assume-filename in the project: formatted" cmp -s "$tmp/stdin.cu" "$p/src/out.cu"

# kpipe's comment lines are never reflowed: clang-format (ReflowComments,
# on by default) joined an over-long `// kpipe:` line to the next, and the
# `// kpipe-launch: dynamic_smem(KERNEL) = N` line that validate, the verifier and
# the bench read no longer started its line (4 stages of 16 KB tiles move
# to dynamic shared memory)
"$cf" --style="file:$p/.clang-format" "$root/samples/wmma_column_conflict.cu" >"$p/src/w.cu"
(cd "$p/src" && "$kpipe" rewrite --variant cp-async --stages 4 --no-verify w.cu -o w4.cu) 2>/dev/null
check "dynamic shared memory: the kpipe-launch line starts its line" \
	grep -q '^// kpipe-launch: dynamic_smem(wmma_column_conflict) = 65536$' "$p/src/w4.cu"
check "dynamic shared memory: kpipe's comment line kept whole" \
	grep -q "^// kpipe: the tiles of 'wmma_column_conflict' are in dynamic shared memory: every launch passes 65536 bytes$" "$p/src/w4.cu"

# DisableFormat: true (as in the repository's own CUDA folders): nothing
# to format, so no clang-format is needed and no remark is made
mkdir -p "$tmp/off"
printf 'DisableFormat: true\n' >"$tmp/off/.clang-format"
cp "$p/src/k.cu" "$tmp/off/k.cu"
(cd "$tmp/off" && KPIPE_CLANG_FORMAT="$tmp/no-such-clang-format" "$kpipe" rewrite k.cu -o out.cu) 2>"$tmp/e"
check "DisableFormat: no remark" bash -c "! grep -q kpipe-not-formatted '$tmp/e'"
check "DisableFormat: kpipe's layout" cmp -s "$tmp/off/out.cu" "$p/src/none.cu"

kp_summary format
