#!/usr/bin/env bash
# run.sh - adversarial inputs, each a check: kpipe must answer every one with
# a clean diagnostic or a correct rewrite, never a crash or a hang.
#
# Small inputs live in tests/adversarial/inputs/ (each says what it expects
# in its first lines); the big and the binary ones are generated here in a
# temporary directory: an empty file, binary garbage, text garbage, CRLF
# line endings, a UTF-8 BOM, tabs, very long lines, a 20 000-term sum, a
# kernel with 50 K-loops, a K-loop 48 loops deep and a 10 MB file; and
# `rewrite --pad-only --swizzle` on shared arrays that try to fool the XOR
# swizzle (swizzle_hostile.cu, a CRLF transpose).  For each input `kpipe analyze`
# and `kpipe rewrite -o` run under a timeout; the exit codes and a
# diagnostic naming the problem are checked.  For the inputs that are
# rewritten, the output must compile with nvcc (-arch=sm_90 -c; "SKIP:"
# when nvcc is missing), keep the CRLF endings / BOM / tabs, and rewriting
# it again must change nothing.  A table (input, outcome, seconds) ends the
# output; docs/reliability.md shows it.  Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
in="$root/tests/adversarial/inputs"
limit="${KPIPE_ADV_TIMEOUT:-60}"
big_limit="${KPIPE_ADV_BIG_TIMEOUT:-180}"
nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
	for c in /usr/local/cuda/bin/nvcc "$(command -v nvcc 2>/dev/null)"; do
		if [ -n "$c" ] && [ -x "$c" ]; then
			nvcc="$c"
			break
		fi
	done
fi
# the compile checks through the tests' nvcc cache (tests/nvcc_cached.sh):
# the sanitizer build's rewrites are the plain build's, byte for byte
if [ -n "$nvcc" ] && [ -n "${KPIPE_NVCC_CACHE:-}" ]; then
	export NVCC_REAL="$nvcc"
	nvcc="$root/tests/nvcc_cached.sh"
fi
kp_tmpdir adversarial
table=()
cd "$root" || exit 1

not_grep() { ! grep -q -- "$1" "$2"; }

# kp NAME SECONDS ARGS...: runs kpipe; sets rc, secs, and $tmp/NAME.out/.err.
kp() {
	local name="$1" lim="$2"
	shift 2
	local t0 t1
	t0=$(date +%s.%N)
	timeout -k 5 "$lim" "$kpipe" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}

# clean: no signal, no timeout, no sanitizer report.
clean() {
	local name="$1"
	case "$rc" in
	124 | 137)
		echo "    $name: no answer within the time limit"
		return 1
		;;
	esac
	if [ "$rc" -ge 128 ]; then
		echo "    $name: killed by signal $((rc - 128))"
		return 1
	fi
	if grep -qE 'Sanitizer|runtime error:|internal error' "$tmp/$name.err"; then
		echo "    $name: sanitizer or internal error report:"
		head -n 5 "$tmp/$name.err" | sed 's/^/      /'
		return 1
	fi
}

is_rc() { [ "$rc" = "$1" ] || {
	echo "    exit $rc, expected $1"
	head -n 3 "$tmp/$2.err" | sed 's/^/      /'
	return 1
}; }
has() { grep -qE -- "$2" "$tmp/$1.err" || {
	echo "    stderr lacks /$2/:"
	head -n 3 "$tmp/$1.err" | sed 's/^/      /'
	return 1
}; }

# refused NAME FILE ARC RRC PATTERN [LIMIT]: analyze exits ARC, rewrite -v
# exits RRC with PATTERN on stderr; with RRC 0 (nothing pipelined) the
# output is the input unchanged, otherwise nothing is written.
refused() {
	local name="$1" f="$2" arc="$3" rrc="$4" pat="$5" lim="${6:-$limit}"
	kp "$name.a" "$lim" analyze "$f"
	local asecs=$secs
	check "$name: analyze answers cleanly" clean "$name.a"
	check "$name: analyze exits $arc" is_rc "$arc" "$name.a"
	rm -f "$tmp/$name.rw.cu"
	kp "$name.r" "$lim" rewrite -v "$f" -o "$tmp/$name.rw.cu"
	check "$name: rewrite answers cleanly" clean "$name.r"
	check "$name: rewrite exits $rrc" is_rc "$rrc" "$name.r"
	check "$name: the diagnostic names the problem" has "$name.r" "$pat"
	if [ "$rrc" = 0 ]; then
		check "$name: the input written unchanged" cmp -s "$tmp/$name.rw.cu" "$f"
	else
		check "$name: nothing written" test ! -e "$tmp/$name.rw.cu"
	fi
	table+=("$name|exit $rrc: $(grep -m1 -oE -- "$pat" "$tmp/$name.r.err" | head -c 70)|$asecs + $secs")
}

# rewritten NAME FILE [LIMIT] [nvcc]: analyze 0, rewrite 0; the output
# compiles (unless the last argument is "no-nvcc") and is a fixed point.
rewritten() {
	local name="$1" f="$2" lim="${3:-$limit}" with_nvcc="${4:-nvcc}"
	kp "$name.a" "$lim" analyze "$f"
	local asecs=$secs
	check "$name: analyze answers cleanly" clean "$name.a"
	check "$name: analyze exits 0" is_rc 0 "$name.a"
	kp "$name.r" "$lim" rewrite -v "$f" -o "$tmp/$name.rw.cu"
	local rsecs=$secs
	check "$name: rewrite answers cleanly" clean "$name.r"
	check "$name: rewrite exits 0" is_rc 0 "$name.r"
	check "$name: an output was written" test -s "$tmp/$name.rw.cu"
	local n
	n=$(grep -c ': note: pipelined with ' "$tmp/$name.r.err")
	if [ -s "$tmp/$name.rw.cu" ]; then
		if [ "$with_nvcc" = no-nvcc ]; then
			echo "SKIP: $name: nvcc check (too slow for this input)"
		elif [ -n "$nvcc" ]; then
			check "$name: the output compiles with nvcc" \
				"$nvcc" -arch=sm_90 -c "$tmp/$name.rw.cu" -o "$tmp/$name.o"
		else
			echo "SKIP: $name: nvcc not found, the output is not compiled"
		fi
		rm -f "$tmp/$name.rw2.cu"
		kp "$name.r2" "$lim" rewrite "$tmp/$name.rw.cu" -o "$tmp/$name.rw2.cu"
		check "$name: rewriting the output answers cleanly" clean "$name.r2"
		check "$name: rewriting the output changes nothing (exit 0)" is_rc 0 "$name.r2"
		check "$name: rewriting the output writes it unchanged" \
			cmp -s "$tmp/$name.rw2.cu" "$tmp/$name.rw.cu"
		check "$name: the second rewrite sees kpipe's own loops" \
			has "$name.r2" 'kpipe-already-pipelined'
	fi
	table+=("$name|rewritten, $n loop$([ "$n" = 1 ] || echo s) pipelined|$asecs + $rsecs")
}

sample="$root/samples/matmul_32x32.cu"

# --- empty, garbage, no kernel ----------------------------------------------
: >"$tmp/empty.cu"
refused empty "$tmp/empty.cu" 1 0 'nothing to pipeline'

python3 - "$tmp/binary_garbage.cu" <<'PY'
import random, sys
r = random.Random(7)
open(sys.argv[1], "wb").write(bytes(r.randrange(256) for _ in range(65536)))
PY
refused binary_garbage "$tmp/binary_garbage.cu" 3 3 'NUL bytes'

python3 - "$tmp/text_garbage.cu" <<'PY'
import random, sys
r = random.Random(11)
# no NUL byte: libclang reads all of it (invalid UTF-8, stray braces)
open(sys.argv[1], "wb").write(bytes(r.randrange(1, 256) for _ in range(65536)))
PY
refused text_garbage "$tmp/text_garbage.cu" 3 3 'text_garbage\.cu:[0-9]+:[0-9]+: error: '

refused plain_cpp "$in/plain_cpp.cu" 1 0 'nothing to pipeline'

# --- unbalanced braces -------------------------------------------------------
refused unbalanced_open "$in/unbalanced_open.cu" 3 3 \
	"unbalanced_open\.cu:[0-9]+:[0-9]+: error: expected '}'"
refused unbalanced_close "$in/unbalanced_close.cu" 3 3 \
	"unbalanced_close\.cu:[0-9]+:[0-9]+: error: extraneous closing brace"

# --- CRLF, BOM, tabs -----------------------------------------------------------
sed 's/$/\r/' "$sample" >"$tmp/crlf.cu"
rewritten crlf "$tmp/crlf.cu"
check "crlf: every output line ends in CRLF" \
	test "$(grep -c $'[^\r]$\|^$' "$tmp/crlf.rw.cu")" = 0

printf '\xef\xbb\xbf' >"$tmp/bom.cu"
cat "$sample" >>"$tmp/bom.cu"
rewritten bom "$tmp/bom.cu"
check "bom: the output starts with the BOM" \
	test "$(head -c 3 "$tmp/bom.rw.cu" | od -An -tx1 | tr -d ' \n')" = efbbbf
check "bom: only one BOM" test "$(grep -c $'\xef\xbb\xbf' "$tmp/bom.rw.cu")" = 1

sed -e ':a' -e 's/^\(\t*\)    /\1\t/;ta' "$sample" >"$tmp/tabs.cu"
rewritten tabs "$tmp/tabs.cu"
check "tabs: the output indents with tabs only" \
	test "$(grep -c '^ \+[^ *]' "$tmp/tabs.rw.cu")" = 0

# --- very long lines -----------------------------------------------------------
# a 1 MB comment line, the kernel on one line, a 90 KB initializer line
python3 - "$sample" "$tmp/long_lines.cu" <<'PY'
import sys
src = open(sys.argv[1]).read()
head, rest = src.split("__global__", 1)
kern, tail = rest.split("// Host-side", 1)
kern = ("__global__" + kern).replace("#pragma unroll\n", "")
one = " ".join(l.strip() for l in kern.splitlines() if l.strip())
init = "__constant__ float kp_table[15000] = {" + ", ".join("%d.0f" % (i % 97) for i in range(15000)) + "};\n"
open(sys.argv[2], "w").write("// " + "x" * 1000000 + "\n" + head + init + one + "\n// Host-side" + tail)
PY
rewritten long_lines "$tmp/long_lines.cu"

# a 20 000-term sum in a tile copy: once 24 s (quadratic), at 100 000 terms
# a crash (stack overflow); now a clean refusal of the file (9 CPU s in the
# launch scan until 2026-12-06, which asked each node of the chain for its
# location, quadratic again; 0.8 s since)
python3 - "$sample" "$tmp/deep_sum.cu" <<'PY'
import sys
src = open(sys.argv[1]).read()
pad = " + 0 * (" + "+".join(["1"] * 100000) + ")"
old = "As[ty][tx] = A[(size_t)row * K + k0 + tx];"
open(sys.argv[2], "w").write(src.replace(old, old[:-2] + pad + "];"))
PY
refused deep_sum "$tmp/deep_sum.cu" 3 3 'nest deeper than [0-9]+ levels'

# --- macros ----------------------------------------------------------------------
refused macro_loop "$in/macro_loop.cu" 0 0 'macro_loop\.cu:[0-9]+:[0-9]+: warning: .*\[kpipe-[a-z-]+\]'
rewritten macro_barrier "$in/macro_barrier.cu"
refused macro_body "$in/macro_body.cu" 0 0 'macro_body\.cu:[0-9]+:[0-9]+: warning: .*\[kpipe-[a-z-]+\]'
# copies through FETCH_FLOAT4 / LDST128BITS: the arguments are edited, never the #define
rewritten macro_copy "$in/macro_copy.cu"
check "macro_copy: the macros are kept as written" \
	grep -qF '#define FETCH_FLOAT4(pointer) (reinterpret_cast<float4 *>(&(pointer))[0])' "$tmp/macro_copy.rw.cu"
check "macro_copy: the stores go through the macros, re-indexed" \
	grep -qF 'FETCH_FLOAT4(As[kp_stage ^ 1][r][c])' "$tmp/macro_copy.rw.cu"
check "macro_copy: the prefetch advances the counter inside the macro argument" \
	grep -qF 'FETCH_FLOAT4(A[(size_t)arow * K + (k0 + TS) + c])' "$tmp/macro_copy.rw.cu"
refused macro_copy_body "$in/macro_copy_body.cu" 0 0 'kpipe-macro-array'
refused macro_hidden_write "$in/macro_hidden_write.cu" 0 0 'kpipe-compute-writes-tile'
refused macro_counter_step "$in/macro_counter_step.cu" 0 0 'kpipe-loop-shape'
refused guard_block "$in/guard_block.cu" 0 0 'kpipe-partial-tile-write'

# --- #if around parts of the loop ------------------------------------------------
refused if_around_loads "$in/if_around_loads.cu" 0 0 'kpipe-preprocessor-conditional'
refused if_around_barrier "$in/if_around_barrier.cu" 0 0 'kpipe-preprocessor-conditional'
rewritten if_around_pragma "$in/if_around_pragma.cu"
check "if_around_pragma: the #if group is kept" \
	grep -qx '#if defined(UNROLL)' "$tmp/if_around_pragma.rw.cu"
if [ -n "$nvcc" ] && [ -s "$tmp/if_around_pragma.rw.cu" ]; then
	check "if_around_pragma: the output compiles with -DUNROLL too" \
		"$nvcc" -arch=sm_90 -DUNROLL -c "$tmp/if_around_pragma.rw.cu" -o "$tmp/ifp.o"
fi

# --- 50 K-loops, nested templates ------------------------------------------------
python3 - "$tmp/kloops50.cu" <<'PY'
import sys
out = ["#include <cuda_runtime.h>", "",
       "__global__ void many(const float *__restrict__ A, const float *__restrict__ B,",
       "                     float *__restrict__ C, int N, int K)", "{",
       "    const int tx = threadIdx.x;", "    const int ty = threadIdx.y;",
       "    const int row = blockIdx.y * 8 + ty;", "    const int col = blockIdx.x * 8 + tx;",
       "    float acc = 0.0f;"]
for i in range(50):
    out += ["    __shared__ float As%d[8][8];" % i,
            "    for (int k%d = 0; k%d < K; k%d += 8) {" % (i, i, i),
            "        As%d[ty][tx] = A[(size_t)row * K + k%d + tx] * %d.0f;" % (i, i, i + 1),
            "        __syncthreads();",
            "        for (int kk = 0; kk < 8; ++kk)",
            "            acc += As%d[ty][kk] * B[(size_t)(k%d + kk) * N + col];" % (i, i),
            "        __syncthreads();", "    }"]
out += ["    C[(size_t)row * N + col] = acc;", "}", ""]
open(sys.argv[1], "w").write("\n".join(out))
PY
rewritten kloops50 "$tmp/kloops50.cu"
check "kloops50: all 50 loops pipelined" \
	test "$(grep -c ': note: pipelined with ' "$tmp/kloops50.r.err")" = 50

rewritten nested_templates "$in/nested_templates.cu"

# --- K-loops inside other loops ------------------------------------------------------
# an outer loop that carries shared state into its K-loop, and two K-loops
# sharing a tile: refused with the ids that say so
refused nested_outer_carry "$in/nested_outer_carry.cu" 0 0 \
	"nested_outer_carry\.cu:19:9: warning: 'As' is used before the loop, in the loop around it at line 16: .*\[kpipe-tile-escapes\]"
check "nested_outer_carry: the tile loop is a remark" \
	has nested_outer_carry.r "nested_outer_carry\.cu:16:5: remark: not a K-loop: .*\[kpipe-loop-shape\]"
refused nested_siblings_shared_tile "$in/nested_siblings_shared_tile.cu" 0 0 \
	"'Ks' is read after the loop, in the loop around it at line 14: .*\[kpipe-tile-read-after-loop\]"
check "nested_siblings_shared_tile: the second loop is refused too" \
	has nested_siblings_shared_tile.r "nested_siblings_shared_tile\.cu:18:13: warning: .*\[kpipe-tile-escapes\]"
# --- dynamic shared memory ----------------------------------------------------------
# two extern carve-outs at one offset spelled two ways, and a carve-out of a
# carve-out: refused, never placed
refused extern_alias "$in/extern_alias.cu" 0 0 \
	"extern_alias\.cu:18:5: warning: the carve-outs 'As' and 'Bs' of 'sm' start at the same offset: they alias \[kpipe-dynamic-smem\]"
refused extern_carve_of_carve "$in/extern_carve_of_carve.cu" 0 0 \
	"extern_carve_of_carve\.cu:19:9: warning: the tile 'Bs' is carved out of 'As', itself a carve-out of 'sm': .*\[kpipe-dynamic-smem\]"
# carve-outs of a static __shared__ array: two at one byte offset spelled
# two ways, one at a run-time offset: refused; distinct constant offsets
# into a float4 array (a near miss): rewritten
refused static_carve_alias "$in/static_carve_alias.cu" 0 0 \
	"static_carve_alias\.cu:18:5: warning: the carve-outs 'As' and 'Bs' of 'smem' start at the same offset \(byte 1024\): they overlap \[kpipe-static-carve\]"
refused static_carve_runtime "$in/static_carve_runtime.cu" 0 0 \
	"static_carve_runtime\.cu:17:5: warning: the carve-out 'Bs' of 'smem' starts at an offset that is not a constant: .*\[kpipe-static-carve\]"
rewritten static_carve_typed "$in/static_carve_typed.cu"
# a copy loop whose trips differ from thread to thread (first element the
# thread's): register staging sizes its registers by the most trips
rewritten register_ragged_trips "$in/register_ragged_trips.cu"
# compute helpers that write the tile they read: a non-const reference, and
# a dependent template call whose parameters kpipe cannot see
refused helper_writes_tile "$in/helper_writes_tile.cu" 0 0 \
	"helper_writes_tile\.cu:29:16: warning: the compute phase passes the loaded tile 'As' to 'scale_row', which may write it: .*\[kpipe-compute-writes-tile\]"
check "helper_writes_tile: the dependent call is refused too" \
	has helper_writes_tile.r "helper_writes_tile\.cu:43:16: warning: the compute phase passes the loaded tile 'Xs' to 'grab', which may write it: its parameter is not a pointer or reference to const \[kpipe-compute-writes-tile\]"
# load helpers the inline pass must leave alone, each for its own reason
refused helper_unsafe_inline "$in/helper_unsafe_inline.cu" 0 0 \
	"helper_unsafe_inline\.cu:76:5: remark: the load helper 'h_bump' is not inlined: the body changes its parameter 'r0' \[kpipe-inline-refused\]"
for want in "88:5: remark: the load helper 'h_ret' is not inlined: its body returns early" \
	"101:5: remark: the load helper 'h_expr' is not inlined: argument 2 \('A \+ \(calls\+\+ & 0\)'\) cannot be bound to a local: an argument changes a variable" \
	"113:5: remark: the load helper 'h_shadow' is not inlined: its local 'k0' would hide a name of the call" \
	"125:5: remark: the loop is refused even once kpipe inlined the load helper 'h_reads', so it is left as written: .*\[kpipe-load-depends-on-compute\]" \
	"137:5: remark: the load helper 'ns::h_const' is not inlined: its body names 'kSkew' of a namespace" \
	"149:5: remark: the load helper 'h_spec<16>' is not inlined: it is an explicit specialisation of a template" \
	"161:5: remark: the load helper 'h_bound' is not inlined: its parameter 'src' is bound to a local, and the call's arguments name 'src' too" \
	"173:5: remark: the load helper 'h_default' is not inlined: argument 4 is not spelled at the call \(a default argument, or a macro's\)" \
	"185:5: remark: the load helper 'h_macro' is not inlined: its body #defines, #undefs or #includes something"; do
	check "helper_unsafe_inline: ${want%%:*}" has helper_unsafe_inline.r "helper_unsafe_inline\.cu:$want"
done
check "helper_unsafe_inline: ten loops refused" has helper_unsafe_inline.r "nothing to pipeline \(10 loops found, 10 refused\)"
# load helpers of a project header the inline pass must leave alone: the
# header is never edited
hh="$in/helper_header_unsafe.cuh"
hh_sum=$(cksum <"$hh")
refused helper_header_unsafe "$in/helper_header_unsafe.cu" 0 0 \
	"helper_header_unsafe\.cu:26:5: remark: the load helper 'hh_scaled' is not inlined: its body names 'HH_SCALE', which the file #defines or #undefines again"
for want in "38:5: remark: the loop is refused even once kpipe inlined the load helper 'hh_converted', so it is left as written: in the inlined copy of 'hh_converted', 'hh_conv' would mean another declaration than in the helper" \
	"52:5: remark: the load helper 'hh_copy' is not inlined: the kernel is in namespace 'app' and the helper is not" \
	"65:5: remark: the load helper 'lib::hh_offset' is not inlined: its body names a type of namespace 'lib' without qualification" \
	"78:5: remark: the load helper 'hh_rows_copy' is not inlined: its body names 'hh_rows', which the calling kernel declares too" \
	"90:5: remark: the load helper 'hh_deduced' is not inlined: the call leaves template argument 'W' to deduction" \
	"103:5: remark: the load helper 'hh_copy' is not inlined: argument 2 \('A \+ \(calls\+\+ & 0\)'\) cannot be bound to a local: an argument changes a variable" \
	"116:5: remark: the load helper 'hh_copy' is not inlined: argument 2 \('A \+ \*&r0 \* 0'\) lets the helper change 'r0'" \
	"132:5: remark: the load helper 'hh_row' is not inlined: argument 1 \('&As\[rows\[threadIdx.y\]\]\[0\]'\) is a tile address that reads memory"; do
	check "helper_header_unsafe: ${want%%:*}" has helper_header_unsafe.r "helper_header_unsafe\.cu:$want"
done
check "helper_header_unsafe: nine loops refused" has helper_header_unsafe.r "nothing to pipeline \(9 loops found, 9 refused\)"
check "helper_header_unsafe: the header untouched" test "$(cksum <"$hh")" = "$hh_sum"
# tile macros: one hides a write of the tile (expanded, still refused), one
# stringifies (not expanded)
refused macro_unsafe_expand "$in/macro_unsafe_expand.cu" 0 0 \
	"macro_unsafe_expand\.cu:17:5: remark: the loop is refused even once kpipe expanded the macro BUMP, whose body names the tiles, so it is left as written: the compute phase writes the loaded tile 'As' \[kpipe-compute-writes-tile\]"
check "macro_unsafe_expand: # is not expanded" has macro_unsafe_expand.r \
	"macro_unsafe_expand\.cu:31:5: remark: the macro 'AT_LOGGED' is not expanded: its body has # or ## or a comment \[kpipe-inline-refused\]"
# a K-loop 48 loops deep, each loop around it with a barrier of its own
python3 - "$tmp/nested_deep.cu" <<'PY'
import sys
depth = 48
out = ["#include <cuda_runtime.h>", "#define T 16",
       "__global__ void deep(const float *__restrict__ A, const float *__restrict__ B,",
       "                     float *__restrict__ C, int N, int K)", "{",
       "    __shared__ float As[T][T];", "    __shared__ float Bs[T][T];",
       "    const int tx = threadIdx.x, ty = threadIdx.y;", "    float acc = 0.0f;"]
ind = "    "
for d in range(depth):
    out += [ind + "for (int i%d = 0; i%d < 1 + (N > %d); ++i%d) {" % (d, d, 1 << 20, d),
            ind + "    __syncthreads();"]
    ind += "    "
out += [ind + "for (int k0 = 0; k0 < K; k0 += T) {",
        ind + "    As[ty][tx] = A[(size_t)ty * K + k0 + tx];",
        ind + "    Bs[ty][tx] = B[(size_t)(k0 + ty) * N + tx];",
        ind + "    __syncthreads();",
        ind + "    for (int kk = 0; kk < T; ++kk)",
        ind + "        acc += As[ty][kk] * Bs[kk][tx];",
        ind + "    __syncthreads();",
        ind + "}"]
for d in range(depth):
    ind = ind[:-4]
    out.append(ind + "}")
out += ["    C[ty * N + tx] = acc;", "}", ""]
open(sys.argv[1], "w").write("\n".join(out))
PY
rewritten nested_deep "$tmp/nested_deep.cu"
check "nested_deep: the K-loop is pipelined" \
	test "$(grep -c ': note: pipelined with ' "$tmp/nested_deep.r.err")" = 1
check "nested_deep: the 48 loops around it are remarks" \
	test "$(grep -c ': remark: not a K-loop: ' "$tmp/nested_deep.r.err")" = 48
# --- barriers written with cooperative groups -------------------------------------
rewritten cg_barriers "$root/tests/cpudiff/kernels/cg_block_sync.cu"
refused tile_sync_barrier "$in/tile_sync_barrier.cu" 0 0 \
	"synchronises only part of the block\) \[kpipe-no-barrier\]"

# --- load phases the canon pass must leave as they are -----------------------------
# (each loop refused, a kpipe-canon-refused remark naming the reason)
refused canon_unsafe "$in/canon_unsafe.cu" 0 0 \
	"canon_unsafe\.cu:23:5: remark: the copy into 'As' through 'v' \(line 29\) is not written as a guarded copy: 'v' is used elsewhere in the kernel.* \[kpipe-canon-refused\]"
for want in "54:5: remark: .*the condition 'tries\+\+ < 1 && r < M' has a side effect \('tries\+\+'\)" \
	"85:5: remark: .*'v' starts as '-1\.0f', not 0" \
	"115:5: remark: .*the else branch stores 'Bs\[ty\]\[tx\]' where the if stores 'As\[ty\]\[tx\]'" \
	"138:5: remark: .*its condition reads 'lim\[blockIdx\.x\]'" \
	"161:5: remark: .*line 167 is not a store into a tile" \
	"185:5: remark: .*'a' would hide another 'a' \(line 196\)" \
	"206:5: remark: .*'s' is initialised each iteration" \
	"226:9: remark: .*the loop is not a statement of a block"; do
	check "canon_unsafe: ${want%%:*}" has canon_unsafe.r "canon_unsafe\.cu:$want.*\[kpipe-canon-refused\]"
done
check "canon_unsafe: nine loops refused" has canon_unsafe.r "nothing to pipeline \(9 loops found, 9 refused\)"

# ... nor in the code the inline pass inlines (its trial runs the canon
# pass's shapes: each loop refused, the remark saying both steps)
refused helper_canon_unsafe "$in/helper_canon_unsafe.cu" 0 0 \
	"helper_canon_unsafe\.cu:33:5: remark: the loop is refused even once kpipe inlined the load helper 'ld_effect'.*nor is the inlined load phase written in the copy forms kpipe reads: .*the condition 'tries\+\+ < 1 && ty < M' has a side effect .*\[kpipe-inline-refused\]"
check "helper_canon_unsafe: the temporary the compute reads" has helper_canon_unsafe.r \
	"helper_canon_unsafe\.cu:52:5: remark: the loop is refused even once kpipe inlined the load helper 'st_elem'.*\[kpipe-load-decl-used-later\]; nor is the inlined load phase written in the copy forms kpipe reads: the copy into 'As' through 'v' \(line 57\) is not written as a guarded copy: 'v' is used elsewhere in the kernel.*\[kpipe-inline-refused\]"
check "helper_canon_unsafe: two loops refused" has helper_canon_unsafe.r "nothing to pipeline \(2 loops found, 2 refused\)"

# while K-loops: written as for-loops only where that is the same loop
"$kpipe" rewrite "$in/canon_while_unsafe.cu" -o "$tmp/canon_while_unsafe.out.cu" \
	>"$tmp/canon_while.out" 2>"$tmp/canon_while.err"
check "canon_while_unsafe: exit 0" test $? -eq 0
for want in "20:5: remark: the while-loop is not written as a for-loop: a 'continue' in its body skips the step" \
	"44:5: remark: the while-loop is not written as a for-loop: its condition writes 'tests'" \
	"64:5: remark: the while-loop is not written as a for-loop: the step on line 71 writes 'calls'" \
	"84:5: note: kpipe wrote the while-loop as a for-loop .its step 't += 1' on line 91"; do
	check "canon_while_unsafe: ${want%%:*}" grep -q "canon_while_unsafe\.cu:$want" "$tmp/canon_while.err"
done
check "canon_while_unsafe: only w_plain pipelined" \
	test "$(grep -c 'for (; t < n / T; t += 1)' "$tmp/canon_while_unsafe.out.cu")" -eq 1 -a \
	"$(grep -c 'while (' "$tmp/canon_while_unsafe.out.cu")" -eq 3

# while loops that are no K-loops: the reason a for-loop would get, not
# "rewrite it as a for-loop"; a while K-loop beside them still pipelined
"$kpipe" rewrite -v "$in/while_not_kloop.cu" -o "$tmp/while_not_kloop.out.cu" \
	>"$tmp/while_not_kloop.out" 2>"$tmp/while_not_kloop.err"
check "while_not_kloop: exit 0" test $? -eq 0
for want in "27:5: remark: not a K-loop: the loop copies nothing from global into __shared__ memory.*\[kpipe-no-tile-load\]" \
	"44:5: remark: not a K-loop: no __syncthreads\(\) at the top level.*\[kpipe-no-barrier\]" \
	"65:5: note: kpipe wrote the while-loop as a for-loop"; do
	check "while_not_kloop: ${want%%:*}" grep -qE "while_not_kloop\.cu:$want" "$tmp/while_not_kloop.err"
done
check "while_not_kloop: no loop-shape refusal" not_grep kpipe-loop-shape "$tmp/while_not_kloop.err"
check "while_not_kloop: only tiles_while pipelined" \
	test "$(grep -cE '^\s+while \(' "$tmp/while_not_kloop.out.cu")" -eq 2

# copy loops counting with a variable of the kernel (canon shape 8): given
# their own counter only where the kernel uses it as a for-loop counter alone
"$kpipe" rewrite -v "$in/counter_outside.cu" -o "$tmp/counter_outside.out.cu" \
	>"$tmp/counter_outside.out" 2>"$tmp/counter_outside.err"
check "counter_outside: exit 0" test $? -eq 0
for want in "27:5: remark: the copy loop on line 28 counts with 'l', declared before the loop, and it is used outside the for-loops it counts" \
	"49:9: remark: the copy loop on line 50 counts with 'l', declared before the loop, and the loop on line 48 around it counts with it too" \
	"70:5: remark: the copy loop on line 71 counts with 'l', declared before the loop, and its address is taken" \
	"94:5: note: kpipe gave 1 copy loop \(the first on line 95\) its own counter 'l'"; do
	check "counter_outside: ${want%%:*}" grep -qE "counter_outside\.cu:$want" "$tmp/counter_outside.err"
done
check "counter_outside: only counter_only pipelined" \
	test "$(grep -c ': note: pipelined with ' "$tmp/counter_outside.err")" -eq 1 -a \
	"$(grep -c 'for (int l = 0; l < R; l++)' "$tmp/counter_outside.out.cu")" -ge 1

# do-while K-loops: a continue that skips the steps, a step reading shared
# memory past the closing barrier, a step that writes another variable, a
# step reading a local of the body; the near miss (d_plain) rewritten with a counter for the first trip
"$kpipe" rewrite "$in/canon_do_unsafe.cu" -o "$tmp/canon_do_unsafe.out.cu" \
	>"$tmp/canon_do.out" 2>"$tmp/canon_do.err"
check "canon_do_unsafe: exit 0" test $? -eq 0
for want in "24:5: remark: the do-while loop is not written as a for-loop: a 'continue' in its body skips the step" \
	"47:5: remark: the do-while loop is not written as a for-loop: the step on line 55 reads the shared array 'stride', which may change after the barrier on line 56" \
	"69:5: remark: the do-while loop is not written as a for-loop: the step on line 75 writes 'calls'" \
	"90:5: note: kpipe wrote the do-while loop as a for-loop .its step 'k0 += T' on line 96" \
	"110:5: remark: the do-while loop is not written as a for-loop: the step on line 117 reads 'step', declared in the loop body"; do
	check "canon_do_unsafe: ${want%%:*}" grep -q "canon_do_unsafe\.cu:$want" "$tmp/canon_do.err"
done
check "canon_do_unsafe: only d_plain pipelined" \
	test "$(grep -c 'for (; kp_it == 0 || (k0 < n); ++kp_it, k0 += T)' "$tmp/canon_do_unsafe.out.cu")" -eq 1 -a \
	"$(grep -c '} while (k0 < n);' "$tmp/canon_do_unsafe.out.cu")" -eq 4

# cuda-convnet2's shapes (canon shapes 6 and 7): tile pointers taken before
# the loop and if/else blocks of copy loops, left alone where writing them
# otherwise could change the program; the three near misses rewritten
"$kpipe" rewrite "$in/canon_carve_unsafe.cu" -o "$tmp/canon_carve_unsafe.out.cu" \
	>"$tmp/canon_carve.out" 2>"$tmp/canon_carve.err"
check "canon_carve_unsafe: exit 0" test $? -eq 0
for want in "30:5: remark: the tile pointer 'aLoad' cannot be replaced by its initialiser: it is changed in the kernel" \
	"51:5: remark: the tile pointer 'aLoad' cannot be replaced by its initialiser: its initialiser's 'perm\[ty\]'" \
	"73:5: remark: the tile pointer 'aLoad' cannot be replaced by its initialiser: its initialiser's 'r'" \
	"93:5: remark: the tile pointer 'aLoad' cannot be replaced by its initialiser: it is used at line 101, outside the loop" \
	"114:5: remark: the tile pointer 'aLoad' cannot be replaced by its initialiser: 'tx' is declared again at line 116" \
	"136:5: remark: the if/else on line 137 is not fused .*: the copy loops of the two branches have different headers" \
	"163:5: remark: the if/else on line 164 is not fused .*: its condition names 'j', which the copy loop declares" \
	"189:5: remark: the if/else on line 190 is not fused .*: its condition reads memory" \
	"215:5: remark: the if/else on line 216 is not fused .*: the else branch stores something else than 0" \
	"243:5: note: kpipe wrote the tile pointers 'aLoad' as (&As\[ty\]\[tx\]), 'bLoad' as (&Bs\[ty\]\[0\])" \
	"261:5: note: kpipe fused the if/else of copy loops (line 262)" \
	"289:5: note: kpipe wrote the tile pointers .*; fused the if/else of copy loops (line 290)" \
	"319:5: remark: the tile pointer 'aLoad' cannot be replaced by its initialiser: its initialiser's 'gRow'" \
	"339:5: remark: the tile pointer 'aLoad' cannot be replaced by its initialiser: it points to volatile memory"; do
	check "canon_carve_unsafe: ${want%%:*}" grep -q "canon_carve_unsafe\.cu:$want" "$tmp/canon_carve.err"
done
check "canon_carve_unsafe: only the three near misses pipelined" \
	test "$(grep -c 'int kp_stage = 0;' "$tmp/canon_carve_unsafe.out.cu")" -eq 3
check "canon_carve_unsafe: the refused loops' pointers kept" \
	test "$(grep -c 'float \*aLoad = ' "$tmp/canon_carve_unsafe.out.cu")" -eq 7

# inline PTX written by macros: its effects are read from the macro's body
# (a store through a macro was once no write at all)
"$kpipe" rewrite "$in/asm_macro_effects.cu" -o "$tmp/asm_macro_effects.out.cu" \
	>"$tmp/asm_macro.out" 2>"$tmp/asm_macro.err"
check "asm_macro_effects: exit 0" test $? -eq 0
for at in 35:4 55:3 74:3; do
	check "asm_macro_effects: the store at $at refused" grep -q \
		"asm_macro_effects\.cu:$at: warning: the compute phase writes memory kpipe cannot name by inline assembly.*\[kpipe-unknown-effect\]" \
		"$tmp/asm_macro.err"
done
check "asm_macro_effects: only k_ldmatrix pipelined" \
	test "$(grep -c 'int kp_stage = 0;' "$tmp/asm_macro_effects.out.cu")" -eq 1
check "asm_macro_effects: its ldmatrix reads the current stage" \
	grep -q '__cvta_generic_to_shared(&As\[kp_stage\]' "$tmp/asm_macro_effects.out.cu"
if [ -n "$nvcc" ]; then
	check "asm_macro_effects: the output compiles" \
		"$nvcc" -arch=sm_90 -c -o /dev/null "$tmp/asm_macro_effects.out.cu"
fi

# K-loops pipelined by hand through registers (cuda-convnet2's *Preload
# kernels): already pipelined, a remark; the near misses keep their warning
refused hand_prefetch "$in/hand_prefetch.cu" 0 0 \
	"hand_prefetch\.cu:25:5: remark: the tile 'As' is stored from 'aPre', which the loop refills from global memory after the store \(line 30\) and which is filled before the loop: the loop is pipelined by hand through registers and is left alone \[kpipe-already-pipelined\]"
check "hand_prefetch: refilled in the load phase" has hand_prefetch.r \
	"hand_prefetch\.cu:50:5: remark: the tile 'As' is stored from 'pre', which the loop refills from global memory after the store \(line 54\).*\[kpipe-already-pipelined\]"
for at in 72 93 113; do
	check "hand_prefetch: the near miss at line $at keeps its warning" has hand_prefetch.r \
		"hand_prefetch\.cu:$at:5: warning: the tile loads read 'aPre', which the loop body modifies.*\[kpipe-load-depends-on-compute\]"
done

# function-like macros named as <cuda_pipeline.h>'s functions (MAGMA's max):
# the added include is wrapped in push_macro / #undef / pop_macro
"$kpipe" rewrite --variant cp-async "$in/macro_max_pipeline.cu" -o "$tmp/macro_max.out.cu" \
	>/dev/null 2>"$tmp/macro_max.err"
check "macro_max_pipeline: exit 0" test $? -eq 0
check "macro_max_pipeline: pipelined with cp.async" grep -q '__pipeline_memcpy_async' "$tmp/macro_max.out.cu"
check "macro_max_pipeline: max, min, wait saved around the include" \
	test "$(grep -cE '^#pragma (push|pop)_macro\("(max|min|wait)"\)$' "$tmp/macro_max.out.cu")" -eq 6
if [ -n "$nvcc" ]; then
	check "macro_max_pipeline: the output compiles with nvcc" \
		"$nvcc" -arch=sm_90 -c "$tmp/macro_max.out.cu" -o "$tmp/macro_max.o"
else
	echo "SKIP: macro_max_pipeline: nvcc not found, the output is not compiled"
fi

# shapes it does rewrite, written awkwardly (a pragma before the loop, a
# condition over two lines with a macro, tabs): pipelined, nvcc compiles it
rewritten canon_awkward "$in/canon_awkward.cu"
check "canon_awkward: the three loops canonicalized and pipelined" \
	test "$(grep -c 'kpipe-canonicalized' "$tmp/canon_awkward.r.err")" -eq 3 -a \
	"$(grep -c ': note: pipelined with ' "$tmp/canon_awkward.r.err")" -eq 3

# --- a copy's temporary that the compute phase reads --------------------------------
refused temp_used_by_compute "$in/temp_used_by_compute.cu" 0 0 \
	"'a' holds a value the load phase reads from global memory.*\[kpipe-load-decl-used-later\]"

# --- a masking pointer into a local that is moved to global memory ----------------
refused masked_pointer_escapes "$in/masked_pointer_escapes.cu" 0 0 \
	"the loop stores through 'vp', which may point into memory the tile loads read.*\[kpipe-memory-order\]"

# --- an accumulator the next tile's copy reads -------------------------------------
refused partial_sum_in_loads "$in/partial_sum_in_loads.cu" 0 0 \
	"the step of 'acc' uses 'part', which changes inside the loop \[kpipe-loop-shape\]"

# --- copies that are not what they look like, passes that change meaning ----------
# shellcheck source=tests/adversarial/copies.sh
. "$root/tests/adversarial/copies.sh"

# --- launch-level resources (issue 31) ----------------------------------------------
# static plus dynamic shared memory against every launch kpipe sees (<<<>>>,
# cudaLaunchKernel), a __device__ K-loop's callers, launches it cannot edit
# auto: compute/load 8 FLOP/B (1024 threads from the launch), so the
# one-buffer form, which keeps the static 8192 B: 49152 B in all, fits
rewritten launch_dyn_smem "$in/launch_dyn_smem.cu"
check "launch_dyn_smem: auto takes the one-buffer form" \
	has launch_dyn_smem.r "launch_dyn_smem\.cu:19:5: note: pipelined with register-2bar"
# two buffers, named: over the limit with the launch's 40 KB, refused
kp launch_dyn_smem.r2 "$limit" rewrite -v --variant register "$in/launch_dyn_smem.cu" \
	-o "$tmp/launch_dyn_smem.r2.cu"
check "launch_dyn_smem: --variant register answers cleanly" clean launch_dyn_smem.r2
check "launch_dyn_smem: --variant register names the problem" has launch_dyn_smem.r2 \
	"launch_dyn_smem\.cu:19:5: warning: the launch at .*launch_dyn_smem\.cu:35 passes 40960 B of dynamic shared memory, and the rewrite takes 16384 B of static shared memory \(8192 B before\): 57344 B in all, over the 49152 B static limit of sm_90 .*\[kpipe-smem-over-limit\]"
check "launch_dyn_smem: --variant register writes the input unchanged" \
	cmp -s "$tmp/launch_dyn_smem.r2.cu" "$in/launch_dyn_smem.cu"
refused launch_dyn_smem_unknown "$in/launch_dyn_smem_unknown.cu" 0 0 \
	"launch_dyn_smem_unknown\.cu:34 passes dynamic shared memory kpipe cannot evaluate \('bytes'\).*\[kpipe-smem-over-limit\]"
rewritten launch_dyn_smem_ok "$in/launch_dyn_smem_ok.cu"
check "launch_dyn_smem_ok: both instantiations' loop pipelined" \
	test "$(grep -c ': note: pipelined with ' "$tmp/launch_dyn_smem_ok.r.err")" = 1
refused launch_device_caller "$in/launch_device_caller.cu" 0 0 \
	"the K-loop is in the __device__ function 'dot_tiles': its caller 'hog' \(line 27\) holds 47104 B of static shared memory of its own and the function's 4096 B \(2048 B before\): 51200 B, over the 49152 B static limit of sm_90 \[kpipe-smem-over-limit\]"
rewritten launch_device_caller_ok "$in/launch_device_caller_ok.cu"
# a launch the dynamic-shared-memory move cannot edit (cudaLaunchKernel)
kp launch_api_dynamic.r "$limit" rewrite -v --variant cp-async "$in/launch_api_dynamic.cu" -o "$tmp/launch_api_dynamic.rw.cu"
check "launch_api_dynamic: rewrite --variant cp-async answers cleanly" clean launch_api_dynamic.r
check "launch_api_dynamic: the move to dynamic shared memory refused" has launch_api_dynamic.r \
	"the tiles cannot move to dynamic shared memory: the launch of 'big_tiles' at line 44 is a cudaLaunchKernel call, which kpipe does not edit \[kpipe-smem-over-limit\]"
check "launch_api_dynamic: the input written unchanged" cmp -s "$tmp/launch_api_dynamic.rw.cu" "$in/launch_api_dynamic.cu"
rewritten launch_api_dynamic_auto "$in/launch_api_dynamic.cu"
check "launch_api_dynamic (auto): register-2bar, the tiles stay static" \
	has launch_api_dynamic_auto.r "pipelined with register-2bar"
# a K-loop under a thread-dependent condition or after an early return:
# register staging adds no __syncwarp() there; under a block-uniform one it does
kp launch_guarded_warp.r "$limit" rewrite --variant register "$in/launch_guarded_warp.cu" -o "$tmp/launch_guarded_warp.rw.cu"
check "launch_guarded_warp: rewrite exits 0" is_rc 0 launch_guarded_warp.r
check "launch_guarded_warp: one __syncwarp() (the block-uniform kernel)" \
	test "$(grep -c '^ *__syncwarp();' "$tmp/launch_guarded_warp.rw.cu")" = 1
check "launch_guarded_warp: says why under the thread-dependent if" grep -qF \
	"no __syncwarp() here: it is under the condition at line 18, which kpipe does not prove the same for every thread ('row < M && col < N')" "$tmp/launch_guarded_warp.rw.cu"
check "launch_guarded_warp: says why after the early return" grep -qF \
	"no __syncwarp() here: a return, break, continue or goto at line 63 comes before it" "$tmp/launch_guarded_warp.rw.cu"
if [ -n "$nvcc" ] && [ -s "$tmp/launch_guarded_warp.rw.cu" ]; then
	check "launch_guarded_warp: the output compiles with nvcc" \
		"$nvcc" -arch=sm_90 -c "$tmp/launch_guarded_warp.rw.cu" -o "$tmp/lgw.o"
fi
table+=("launch_guarded_warp|rewritten, $(grep -c '^ *__syncwarp();' "$tmp/launch_guarded_warp.rw.cu") __syncwarp|$secs")
# the tensor-map launcher takes the kernel's parameters without __grid_constant__
kp launch_tma_grid_constant.r "$limit" rewrite --variant tma --stages 3 "$in/launch_tma_grid_constant.cu" -o "$tmp/launch_tma_grid_constant.rw.cu"
check "launch_tma_grid_constant: rewrite exits 0" is_rc 0 launch_tma_grid_constant.r
check "launch_tma_grid_constant: the launcher's parameter is plain" grep -qE \
	'^ +const Scale s\)$' "$tmp/launch_tma_grid_constant.rw.cu"
check "launch_tma_grid_constant: the kernel keeps __grid_constant__" grep -qF \
	'const __grid_constant__ Scale s, const __grid_constant__ CUtensorMap' "$tmp/launch_tma_grid_constant.rw.cu"
if [ -n "$nvcc" ] && [ -s "$tmp/launch_tma_grid_constant.rw.cu" ]; then
	check "launch_tma_grid_constant: the output compiles with nvcc" \
		"$nvcc" -arch=sm_90 -c "$tmp/launch_tma_grid_constant.rw.cu" -o "$tmp/ltgc.o"
fi
table+=("launch_tma_grid_constant|rewritten (tma)|$secs")

# a kernel that stores to global memory before its K-loop, with bulk copies:
# every thread fences its stores for the async proxy before the barrier
kp bulk_store_before.r "$limit" rewrite --variant bulk "$in/bulk_store_before.cu" -o "$tmp/bulk_store_before.rw.cu"
check "bulk_store_before: rewrite exits 0" is_rc 0 bulk_store_before.r
check "bulk_store_before: the proxy fence before the setup's barrier" grep -qzE \
	'asm volatile\("fence\.proxy\.async\.global;" ::: "memory"\);[[:space:]]*__syncthreads\(\);' \
	"$tmp/bulk_store_before.rw.cu"
if [ -n "$nvcc" ] && [ -s "$tmp/bulk_store_before.rw.cu" ]; then
	check "bulk_store_before: the output compiles with nvcc" \
		"$nvcc" -arch=sm_90 -c "$tmp/bulk_store_before.rw.cu" -o "$tmp/bsb.o"
fi
table+=("bulk_store_before|rewritten (bulk, proxy fence)|$secs")

# --- the XOR swizzle of --pad (--swizzle) on hostile layouts --------------------------
# swizzled NAME FILE ARGS...: rewrite --pad-only --swizzle ARGS answers
# cleanly (exit 0), the output compiles and a second run changes nothing
swizzled() {
	local name="$1" f="$2"
	shift 2
	kp "$name.r" "$limit" rewrite --pad-only --swizzle "$@" "$f" -o "$tmp/$name.rw.cu"
	local rsecs=$secs
	check "$name: rewrite --swizzle answers cleanly" clean "$name.r"
	check "$name: rewrite --swizzle exits 0" is_rc 0 "$name.r"
	if [ -n "$nvcc" ] && [ -s "$tmp/$name.rw.cu" ]; then
		check "$name: the output compiles with nvcc" \
			"$nvcc" -arch=sm_90 -c "$tmp/$name.rw.cu" -o "$tmp/$name.o"
	fi
	kp "$name.r2" "$limit" rewrite --pad-only --swizzle "$@" "$tmp/$name.rw.cu" -o "$tmp/$name.rw2.cu"
	check "$name: a second run changes nothing" cmp -s "$tmp/$name.rw.cu" "$tmp/$name.rw2.cu"
	table+=("$name|$(grep -c '\[kpipe-swizzled\]' "$tmp/$name.r.err") swizzled, $(grep -c '\[kpipe-padded\]' "$tmp/$name.r.err") padded|$rsecs")
}
swizzled swizzle_hostile "$in/swizzle_hostile.cu" --block 32
h="$tmp/swizzle_hostile"
check "swizzle_hostile: s1 (an inner variable of its name) padded, not swizzled" \
	has swizzle_hostile.r "\`s1\` padded .*not swizzled: its name appears where kpipe sees no access of it \(another variable of that name"
check "swizzle_hostile: s3 (i++ as its row) padded, not swizzled" \
	has swizzle_hostile.r "\`s3\` padded .*not swizzled: its row index \`i\+\+\` changes a variable"
check "swizzle_hostile: s2 swizzled, its name in comments and literals aside" \
	grep -q "acc += s2\[tx\]\[tx & 31\];" "$h.rw.cu"
check "swizzle_hostile: s2's comment and literal as they were" \
	grep -q 'sizeof("s2\[tx\]\[0\]")' "$h.rw.cu"
check "swizzle_hostile: s4 swizzled through its parentheses" \
	grep -q "acc += (s4\[tx\])\[tx & 31\];" "$h.rw.cu"
check "swizzle_hostile: s1 and s3 padded" test "$(grep -c '\[32\]\[33\];' "$h.rw.cu")" = 2
sed 's/$/\r/' "$root/tests/cli/pad/transpose.cu" >"$tmp/swizzle_crlf.cu"
swizzled swizzle_crlf "$tmp/swizzle_crlf.cu"
check "swizzle_crlf: swizzled" has swizzle_crlf.r "kpipe-swizzled"
check "swizzle_crlf: every output line ends in CRLF" \
	test "$(grep -c $'[^\r]$\|^$' "$tmp/swizzle_crlf.rw.cu")" = 0

# --- effects the analysis must see (effects.c, rules/phase_effects.c) ---------
refused effects_alias "$in/effects_alias.cu" 0 0 \
	"effects_alias\.cu:32:13: warning: the compute phase writes 'lim' through the reference 'extent' \(line 32\), which the loop condition reads.*\[kpipe-load-depends-on-compute\]"
# (advance(pa, T) takes `const float *&`: clang's parameter type, a non-const
# reference, makes it a write of 'pa' for the direct checks too)
for want in "55:13: .*'lim' through the pointer 'plim'.*the loop condition" \
	"72:5: .*the tile loads read 'pa', which the loop body modifies" \
	"101:9: warning: a statement after the closing barrier writes 'pa' through the reference 'ra'"; do
	check "effects_alias: ${want%%:*}" has effects_alias.r "effects_alias\.cu:$want.*\[kpipe-load-depends-on-compute\]"
done
check "effects_alias: four loops refused" has effects_alias.r "nothing to pipeline \(4 loops found, 4 refused\)"
refused effects_global "$in/effects_global.cu" 0 0 \
	"effects_global\.cu:33:13: warning: the compute phase writes global memory through 'lim' \(line 33\), which the loop condition also reads.*\[kpipe-memory-order\]"
for want in "59:13: .*the __device__ variable 'g_off' in the call to 'set_off'.*\[kpipe-memory-order\]" \
	"88:13: .*writes memory kpipe cannot name.*\[kpipe-unknown-effect\]" \
	"109:13: .*writes memory kpipe cannot name by inline assembly.*\[kpipe-unknown-effect\]" \
	"132:13: .*the __device__ variable 'g_scratch'.*global memory through 'A'.*\[kpipe-memory-order\]"; do
	check "effects_global: ${want%%:*}" has effects_global.r "effects_global\.cu:$want"
done
check "effects_global: five loops refused" has effects_global.r "nothing to pipeline \(5 loops found, 5 refused\)"
refused effects_canon "$in/effects_canon.cu" 0 0 \
	"effects_canon\.cu:20:5: remark: the declaration on line 21 is not moved before the loop: 'scale' is initialised each iteration, and the loop changes it through the reference 's' \(line 28\) \[kpipe-canon-refused\]"
check "effects_canon: the per-tile array" has effects_canon.r \
	"effects_canon\.cu:43:5: remark: .*'part' is initialised each iteration, and the loop changes it \(line 49\) \[kpipe-canon-refused\]"
check "effects_canon: two loops refused" has effects_canon.r "nothing to pipeline \(2 loops found, 2 refused\)"
rewritten effects_after_loop "$in/effects_after_loop.cu"
kp effects_after_loop.cp "$limit" rewrite --variant cp-async "$in/effects_after_loop.cu" \
	-o "$tmp/effects_after_loop.cp.cu"
check "effects_after_loop: cp-async keeps a barrier after the loop, naming the store" \
	grep -q "__syncthreads(); // kpipe: line 26 writes global memory that the kernel reads after the loop" \
	"$tmp/effects_after_loop.cp.cu"
rewritten effects_near "$in/effects_near.cu"
check "effects_near: six loops pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/effects_near.r.err")" = 6
# (ref_bump_read is left alone by the plan, no variant reads through a
# reference, but not by the effect rules: the bump is an induction variable)
check "effects_near: no effect refusal" test "$(grep -c 'kpipe-load-depends-on-compute\|kpipe-memory-order\|kpipe-unknown-effect' "$tmp/effects_near.r.err")" = 0

# --- issue 34: scratch variables declared before the loop (analysis/liveness.c) ---
rewritten scratch_live "$in/scratch_live.cu"
for want in "51:5: warning: the tile loads read 'idx', which the loop body modifies" \
	"71:5: warning: the tile loads read 'idx', which the loop body modifies" \
	"94:5: warning: the tile loads read 'idx', which the loop body modifies"; do
	check "scratch_live: ${want%%:*} refused" has scratch_live.r "scratch_live\.cu:$want.*\[kpipe-load-depends-on-compute\]"
done
# live_compute's 'base' is a pure function of the counter: a tile value
# (analysis/tile_value.c), computed again at the top of the compute phase
check "scratch_live: live_compute and private_ok pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/scratch_live.r.err")" = 2
check "scratch_live: live_compute pipelined" has scratch_live.r "scratch_live\.cu:30:5: note: pipelined with "
check "scratch_live: live_compute computes base again" grep -q "base = t \* TILE; // kpipe: this tile's 'base'" "$tmp/scratch_live.rw.cu"
check "scratch_live: private_ok pipelined" has scratch_live.r "scratch_live\.cu:114:5: note: pipelined with "

# --- issue 34: guarded copies without else, reads inside the writes (analysis/guard_cover.c) ---
rewritten guard_cover "$in/guard_cover.cu"
for want in 25 41 57 73 89; do
	check "guard_cover: line $want refused" has guard_cover.r "guard_cover\.cu:$want:9: warning: 'xs' is written under the condition .*\[kpipe-partial-tile-write\]"
done
check "guard_cover: two loops pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/guard_cover.r.err")" = 2
check "guard_cover: matmul_ragged pipelined" has guard_cover.r "guard_cover\.cu:107:5: note: pipelined with "
check "guard_cover: gemv_and pipelined" has guard_cover.r "guard_cover\.cu:126:5: note: pipelined with "
check "guard_cover: moving_target refused" has guard_cover.r "guard_cover\.cu:146:9: warning: 'xs' is written under the condition .*\[kpipe-partial-tile-write\]"

# --- issue 34: transpose-shaped loops (MAGMA geam/transpose): scratch
# indices read through their assignments (analysis/scratch_def.c) ---
rewritten guard_transpose "$in/guard_transpose.cu"
for want in "41:9: warning: 'sY' is written under the condition 'r < m'" \
	"89:17: warning: 'sY' is written under the condition 's \+ q < n'" \
	"132:9: warning: 'sY' is written under the condition 'r < m'"; do
	check "guard_transpose: ${want%%:*} refused" has guard_transpose.r "guard_transpose\.cu:$want.*\[kpipe-partial-tile-write\]"
done
check "guard_transpose: aliased refused naming Y" has guard_transpose.r "guard_transpose\.cu:194:25: warning: the loop stores through 'Z', which may alias a loaded array \('Y'.*\[kpipe-memory-order\]"
check "guard_transpose: only conj_ok pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/guard_transpose.r.err")" = 1
check "guard_transpose: conj_ok pipelined" has guard_transpose.r "guard_transpose\.cu:219:5: note: pipelined with "

# --- issue 34: tile loads through a __shared__ table the loop never writes
# (analysis/shared_table.c) ---
rewritten shared_table "$in/shared_table.cu"
# the first (the compute writes the table the loads read) is the hazard
# kpipe-smem-carried names, at the write
check "shared_table: 29 refused at the compute's write" has shared_table.r "shared_table\.cu:36:13: warning: the compute phase writes the shared array 'rows' and the load phase reads it.*\[kpipe-smem-carried\]"
for want in "56:5: warning: the load phase reads the shared array 'rows'" \
	"80:5: warning: the load phase reads the shared array 'rows'" \
	"105:5: warning: the load phase reads the shared array 'idx'"; do
	check "shared_table: ${want%%:*} refused" has shared_table.r "shared_table\.cu:$want.*\[kpipe-load-depends-on-compute\]"
done
check "shared_table: only fixed_ok pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/shared_table.r.err")" = 1
check "shared_table: fixed_ok pipelined" has shared_table.r "shared_table\.cu:128:5: note: pipelined with "

# --- issue 34: shared state the compute phase writes and the next tile's
# copies read, through a pointer, a reference or a helper (rules/dependences.c,
# carried_by_alias); scratch written through a pointer and never read by the
# copies is safe ---
rewritten smem_carried_alias "$in/smem_carried_alias.cu"
for want in "36:13" "88:13" "113:13" "138:13"; do
	check "smem_carried_alias: $want refused" has smem_carried_alias.r "smem_carried_alias\.cu:$want: warning: the compute phase writes the shared array 'cscale' and the load phase reads it.*\[kpipe-smem-carried\]"
done
check "smem_carried_alias: write through a pointer refused" has smem_carried_alias.r "smem_carried_alias\.cu:55:5: warning: the load phase reads the shared array 'cscale'.*\[kpipe-load-depends-on-compute\]"
check "smem_carried_alias: only scratch_ok pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/smem_carried_alias.r.err")" = 1
check "smem_carried_alias: scratch_ok pipelined" has smem_carried_alias.r "smem_carried_alias\.cu:157:5: note: pipelined with "

# --- issue 34: tile values (analysis/tile_value.c): a variable the load
# phase sets for its tile and the compute phase reads is evaluated again at
# the top of the compute phase only where that gives the original's value;
# each near miss stays refused ---
rewritten tile_value_unsafe "$in/tile_value_unsafe.cu"
for want in "30:5: warning: the tile loads read 'kw'" \
	"51:5: warning: the tile loads read 'kw'" \
	"95:5: warning: the tile loads read 'limit'" \
	"118:5: warning: the tile loads read 'kw'" \
	"161:5: warning: the tile loads read 'kw'"; do
	check "tile_value_unsafe: ${want%%:*} refused" has tile_value_unsafe.r "tile_value_unsafe\.cu:$want.*\[kpipe-load-depends-on-compute\]"
done
check "tile_value_unsafe: from_memory refused" has tile_value_unsafe.r "tile_value_unsafe\.cu:74:5: warning: 'kw' holds a value the load phase reads from global memory.*\[kpipe-load-decl-used-later\]"
check "tile_value_unsafe: warp_value refused" has tile_value_unsafe.r "tile_value_unsafe\.cu:140:5: warning: 'kw' is declared in the load phase and used by the compute phase, and is no tile value.*\[kpipe-load-decl-used-later\]"
check "tile_value_unsafe: guard_short refused" has tile_value_unsafe.r "tile_value_unsafe\\.cu:184:9: warning: 'As' is written under the condition 'tx < kw'.*\\[kpipe-partial-tile-write\\]"
check "tile_value_unsafe: only safe_value pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/tile_value_unsafe.r.err")" = 1
check "tile_value_unsafe: safe_value pipelined" has tile_value_unsafe.r "tile_value_unsafe\.cu:205:5: note: pipelined with "
check "tile_value_unsafe: safe_value computes kw again" grep -q "kw = min(T, K - t \* T); // kpipe: this tile's 'kw'" "$tmp/tile_value_unsafe.rw.cu"

# --- issue 34: nested if/else of copy loops with a const local between
# (rewrite/canon_fuse.c, fuse_nested) ---
rewritten canon_nested_unsafe "$in/canon_nested_unsafe.cu"
for want in 27 61 95 130; do
	check "canon_nested_unsafe: line $want refused" has canon_nested_unsafe.r "canon_nested_unsafe\.cu:$want:9: warning: 'As' is written under the condition 'k0 \+ tx < K'.*\[kpipe-partial-tile-write\]"
done
check "canon_nested_unsafe: only float_table_ok pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/canon_nested_unsafe.r.err")" = 1
check "canon_nested_unsafe: float_table_ok fused" has canon_nested_unsafe.r "canon_nested_unsafe\.cu:163:5: note: kpipe fused the if/else of copy loops \(line 164\)"

# --- issue 34: an if/else of several copy loops whose then branch has a
# bound the else branch lacks (rewrite/canon_fuse.c, fuse_multi): dropped
# only where a tile pointer formed before the loop makes it hold ---
rewritten canon_bound_unsafe "$in/canon_bound_unsafe.cu"
for want in "28:.*'if \\(ly < ROWS / 2\\)'" "57:.*'if \\(lx < ROWS\\)'" "85:.*'if \\(ly < ROWS\\)'"; do
	check "canon_bound_unsafe: line ${want%%:*} refused" has canon_bound_unsafe.r "canon_bound_unsafe\.cu:$want, which the else branch's loop is not, and kpipe does not prove it always holds"
done
check "canon_bound_unsafe: only ok_bound pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/canon_bound_unsafe.r.err")" = 1
check "canon_bound_unsafe: ok_bound fused" has canon_bound_unsafe.r "canon_bound_unsafe\.cu:114:5: note: .*fused the if/else of copy loops \(line 115, without 'if \(ly < ROWS\)'"

# --- issue 34: a tile refilled after the loop (analysis/refill.c) or read as
# the loop left it (analysis/last_tile.c) ---
rewritten refill_after "$in/refill_after.cu"
check "refill_after: 40 refused" has refill_after.r "refill_after\.cu:40:5: warning: 'As' is read after the loop.*\[kpipe-tile-read-after-loop\]"
check "refill_after: five loops pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/refill_after.r.err")" = 5
for want in 57:5 83:5 109:5 134:5 158:5; do
	check "refill_after: $want pipelined" has refill_after.r "refill_after\.cu:$want: note: pipelined with "
done
check "refill_after: the refill uses stage 0" grep -q "As\[0\]\[ty\]\[tx\] = full + tx < K" "$tmp/refill_after.rw.cu"
check "refill_after: the read before the refill uses the last stage" grep -q "acc += As\[kp_last1\]\[ty\]\[0\];" "$tmp/refill_after.rw.cu"
rewritten last_tile "$in/last_tile.cu"
for want in 40:24 60:23 80:24 104:24; do
	check "last_tile: $want refused" has last_tile.r "last_tile\.cu:$want: warning: 'As' is read after the loop.*\[kpipe-tile-read-after-loop\]"
done
check "last_tile: two loops pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/last_tile.r.err")" = 2
for want in 116:5 139:5; do
	check "last_tile: $want pipelined" has last_tile.r "last_tile\.cu:$want: note: pipelined with "
done
check "last_tile: the read after the loop uses the last stage" grep -q "L\[row \* N + col\] = As\[kp_last1\]\[tx\]\[ty\] - Bs\[kp_last1\]\[ty\]\[tx\];" "$tmp/last_tile.rw.cu"

# --- issue 34: a second K-loop over the tiles of a first one (analysis/earlier_use.c) ---
rewritten second_kloop "$in/second_kloop.cu"
check "second_kloop: no_sync refused" has second_kloop.r "second_kloop\.cu:37:5: warning: 'As' is used before the loop with no __syncthreads\(\) between that use and the loop.*\[kpipe-tile-escapes\]"
check "second_kloop: open_loop refused" has second_kloop.r "second_kloop\.cu:56:9: warning: 'As' is used before the loop with no __syncthreads\(\) between that use and the loop.*\[kpipe-tile-escapes\]"
check "second_kloop: transposed refused" has second_kloop.r "second_kloop\.cu:75:9: warning: 'As' is stored into before the loop through other subscripts.*\[kpipe-tile-escapes\]"
check "second_kloop: around refused" has second_kloop.r "second_kloop\.cu:99:13: warning: 'As' is used before the loop, in the loop around it at line 96.*\[kpipe-tile-escapes\]"
check "second_kloop: four loops pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/second_kloop.r.err")" = 4
for want in 122:5 135:5; do
	check "second_kloop: same_copies $want pipelined" has second_kloop.r "second_kloop\.cu:$want: note: pipelined with "
done
check "second_kloop: one last-stage variable for both loops" test "$(grep -c 'kp_last1 = kp_stage;' "$tmp/second_kloop.rw.cu")" = 4
check "second_kloop: the read after the second loop uses it" grep -q "C\[ty \* S + tx\] = acc + As\[kp_last1\]\[tx\]\[ty\];" "$tmp/second_kloop.rw.cu"

# --- issue 34: earlier stores spelled unlike the second loop's copies (analysis/elem_cover.c) ---
rewritten second_kloop_cover "$in/second_kloop_cover.cu"
check "second_kloop_cover: rect (16 x 8) refused" has second_kloop_cover.r "second_kloop_cover\.cu:26:9: warning: 'As' is stored into before the loop .* with the block 16x8x1 \(launch at line 116\) the store writes an element that no thread's copies in the loop write.*\[kpipe-tile-escapes\]"
check "second_kloop_cover: mirror_out (the padding column) refused" has second_kloop_cover.r "second_kloop_cover\.cu:56:9: warning: 'As' is stored into before the loop .* with the block 16x16x1 \(launch at line 117\) the store writes an element that no thread's copies.*\[kpipe-tile-escapes\]"
check "second_kloop_cover: runtime_block refused" has second_kloop_cover.r "second_kloop_cover\.cu:75:9: warning: 'As' is stored into before the loop .* no block shape is known.*\[kpipe-tile-escapes\]"
for want in 97:5 104:5; do
	check "second_kloop_cover: square $want pipelined" has second_kloop_cover.r "second_kloop_cover\.cu:$want: note: pipelined with "
done
check "second_kloop_cover: helper_reads' two loops pipelined (twice() only reads its reference)" has second_kloop_cover.r "second_kloop_cover\.cu:148:5: note: pipelined with "
check "second_kloop_cover: helper_writes refused (bump() writes the element)" has second_kloop_cover.r "second_kloop_cover\.cu:171:17: warning: 'As' is written, passed on or aliased before the loop.*\[kpipe-tile-escapes\]"
check "second_kloop_cover: helper_ref refused (same() returns the reference)" has second_kloop_cover.r "second_kloop_cover\.cu:196:10: warning: 'As' is written, passed on or aliased before the loop.*\[kpipe-tile-escapes\]"
check "second_kloop_cover: taken refused (its address is taken: a launch whose block kpipe does not read)" has second_kloop_cover.r "second_kloop_cover\.cu:224:9: warning: 'As' is stored into before the loop .* no block shape is known.*\[kpipe-tile-escapes\]"
check "second_kloop_cover: device_shift refused (a __device__ variable's initialiser is not its value)" has second_kloop_cover.r "second_kloop_cover\.cu:260:9: warning: 'As' is stored into before the loop .* the store depends on 'shift', whose value kpipe does not know.*\[kpipe-tile-escapes\]"
check "second_kloop_cover: eleven loops pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/second_kloop_cover.r.err")" = 11

# --- issue #34's idioms (analysis/pure.c): the near misses that stay refused ------
rewritten effects_idioms_unsafe "$in/effects_idioms_unsafe.cu"
for want in "39:25: warning: the loop condition calls 'min', which may have a side effect.*\[kpipe-cond-side-effect\]" \
	"70:15: warning: the loop stores to 'A', which its tile loads also read \[kpipe-memory-order\]" \
	"101:13: warning: the compute phase writes 'kf' in the call to 'operator<'.*\[kpipe-load-depends-on-compute\]" \
	"121:5: warning: the tile loads read 'off', which the loop body modifies.*\[kpipe-load-depends-on-compute\]" \
	"149:9: warning: the compute phase writes 'off' in the call to 'shift'.*\[kpipe-load-depends-on-compute\]" \
	"165:5: note: pipelined with register .*cp.async does not apply \(line 166: the copy converts or computes on its way in\)" \
	"191:9: warning: statement after the closing barrier is not a pointer or counter bump \[kpipe-loop-shape\]" \
	"205:5: warning: the tile loads read 'base', which the loop body modifies.*\[kpipe-load-depends-on-compute\]" \
	"229:5: warning: the tile loads read 'koff', which the loop body modifies.*\[kpipe-load-depends-on-compute\]"; do
	check "effects_idioms_unsafe: ${want%%:*}" has effects_idioms_unsafe.r "effects_idioms_unsafe\.cu:$want"
done
check "effects_idioms_unsafe: one loop of nine pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/effects_idioms_unsafe.r.err")" = 1

# calls left unresolved in a template (hemm_overloads' shape): an overload
# that writes its argument, and a name another namespace also declares
rewritten overloads_unsafe "$in/overloads_unsafe.cu"
for want in "88:46: warning: 'sA' is written, passed on or aliased before the loop.*\[kpipe-tile-escapes\]" \
	"179:43: warning: 'sA' is written, passed on or aliased before the loop.*\[kpipe-tile-escapes\]" \
	"239:5: warning: the tile loads read 'tmp', which the loop body modifies.*\[kpipe-load-depends-on-compute\]" \
	"281:5: warning: the tile loads read 'tmp', which the loop body modifies.*\[kpipe-load-depends-on-compute\]"; do
	check "overloads_unsafe: ${want%%:*}" has overloads_unsafe.r "overloads_unsafe\.cu:$want"
done
check "overloads_unsafe: two loops of six pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/overloads_unsafe.r.err")" = 2

# value accessors' near misses (pass_inline.c): expanded or not, then
# judged as written; two of five loops pipelined
rewritten accessor_unsafe "$in/accessor_unsafe.cu"
for want in "25:5: remark: the loop is refused even once kpipe expanded the accessor 'a\.scaled'.*'g_scale', which the loop body modifies.*\[kpipe-inline-refused\]" \
	"42:5: remark: the accessor 'a\.at' is not expanded: .*\[kpipe-inline-refused\]" \
	"83:9: warning: the compute phase writes memory kpipe cannot name.*\[kpipe-unknown-effect\]" \
	"57:5: note: kpipe expanded the accessor 'b\.at', so that the loop is pipelined" \
	"94:5: note: kpipe expanded the accessor 'a\.iat', so that the loop is pipelined"; do
	check "accessor_unsafe: ${want%%:*}" has accessor_unsafe.r "accessor_unsafe\.cu:$want"
done
check "accessor_unsafe: two loops of five pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/accessor_unsafe.r.err")" = 2

# __device__ helpers of the file in the loop condition (rules/cond_pure.c):
# a pure one is read through and accepted, the rest refused with the reason
rewritten cond_helpers "$in/cond_helpers.cu"
check "cond_helpers: cdiv_loop pipelined" has cond_helpers.r "cond_helpers\.cu:42:5: note: pipelined with "
check "cond_helpers: cdiv_loop verified on the CPU emulator" not_grep kpipe-unverified "$tmp/cond_helpers.r.err"
for want in "61:25: warning: the loop condition calls 'cdiv_count', which may have a side effect \(it writes the __device__ variable 'calls'\).*\[kpipe-cond-side-effect\]" \
	"80:25: warning: the loop condition calls 'cdiv_sync', which may have a side effect \(it holds a barrier at line 27\).*\[kpipe-cond-side-effect\]" \
	"99:25: warning: the loop condition calls 'cdiv_nested', which may have a side effect \(it holds a barrier at line 27\).*\[kpipe-cond-side-effect\]" \
	"124:25: warning: the loop condition calls 's\.count\(\)', which may have a side effect: .*\[kpipe-cond-side-effect\]"; do
	check "cond_helpers: ${want%%:*}" has cond_helpers.r "cond_helpers\.cu:$want"
done
check "cond_helpers: one loop of five pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/cond_helpers.r.err")" = 1
refused cond_helpers_asm "$in/cond_helpers_asm.cu" 0 0 \
	"cond_helpers_asm\.cu:24:25: warning: the loop condition calls 'cdiv_asm', which may have a side effect \(it holds inline assembly at line 12\).*\[kpipe-cond-side-effect\]"
for want in "50:25: warning: the loop condition calls 'bound_shfl', which may have a side effect \(it calls '__shfl_sync' at line 39, which is no function of its operands alone\).*\[kpipe-cond-side-effect\]" \
	"69:25: warning: the loop condition calls 'bound_clock', which may have a side effect \(it calls 'clock64' at line 40, which is no function of its operands alone\).*\[kpipe-cond-side-effect\]" \
	"93:25: warning: the loop condition reads volatile memory \('\*\(volatile const int \*\)P'\), which may change between its evaluations.*\[kpipe-cond-side-effect\]" \
	"112:25: warning: the loop condition calls 'bound_volatile', which may have a side effect \(it reads volatile memory at line 83\).*\[kpipe-cond-side-effect\]"; do
	check "cond_helpers_asm: ${want%%:*}" has cond_helpers_asm.r "cond_helpers_asm\.cu:$want"
done

# tile loads from volatile memory outside __shared__ (rules/volatile_load.c)
rewritten volatile_loads "$in/volatile_loads.cu"
for want in "25:22: warning: the load phase reads volatile memory at line 25 .*\[kpipe-memory-order\]" \
	"43:22: warning: the load phase reads volatile memory at line 43 \('table\[.*\[kpipe-memory-order\]" \
	"62:9: warning: the load phase reads volatile memory in the called function 'load_v' \(its line 14\).*\[kpipe-memory-order\]" \
	"80:5: note: pipelined with register "; do
	check "volatile_loads: ${want%%:*}" has volatile_loads.r "volatile_loads\.cu:$want"
done
check "volatile_loads: one loop of four pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/volatile_loads.r.err")" = 1

# declarations the canon pass moves before the loop: static or extern is
# clang's storage class, not a word of the text (rewrite/canon.c)
rewritten canon_storage "$in/canon_storage.cu"
for want in "18:5: note: kpipe moved the declarations of 'As', 'Bs', 'a_static_extern' before the loop" \
	"18:5: note: pipelined with register " \
	"41:5: remark: the declaration on line 45 is not moved before the loop: 'a' is static: one variable for the whole program.*\[kpipe-canon-refused\]"; do
	check "canon_storage: ${want%%:*}" has canon_storage.r "canon_storage\.cu:$want"
done
check "canon_storage: name_static verified on the CPU emulator" not_grep kpipe-unverified "$tmp/canon_storage.r.err"
check "canon_storage: one loop of two pipelined" test "$(grep -c ': note: pipelined with ' "$tmp/canon_storage.r.err")" = 1

# --- a 10 MB file ------------------------------------------------------------------
python3 - "$sample" "$tmp/big_10mb.cu" <<'PY'
import sys
parts = [open(sys.argv[1]).read()]
size, i = len(parts[0]), 0
while size < 10 * 1024 * 1024:
    l = "__device__ float helper_%d(float x) { return x * 2.0f + %d.0f; } // padding\n" % (i, i)
    parts.append(l)
    size += len(l)
    i += 1
open(sys.argv[2], "w").write("".join(parts))
PY
rewritten big_10mb "$tmp/big_10mb.cu" "$big_limit" no-nvcc
if [ -s "$tmp/big_10mb.rw.cu" ]; then
	check "big_10mb: the 10 MB after the kernel are unchanged" \
		cmp -s <(tail -c 10000000 "$tmp/big_10mb.cu") <(tail -c 10000000 "$tmp/big_10mb.rw.cu")
fi

echo
echo "| input | outcome | seconds (analyze + rewrite) |"
echo "|---|---|---|"
for row in "${table[@]}"; do
	IFS='|' read -r a b c <<<"$row"
	echo "| $a | $b | $c |"
done
echo
kp_summary
