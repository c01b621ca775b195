#!/usr/bin/env bash
# swizzle.sh - the XOR swizzle of the pad pass (issue #20) on the fixtures
# of tests/cli/swizzle/ and tests/cli/pad/ and on the samples:
#   - where no padding fits the static shared-memory limit
#     (samples/transpose_wide_tile.cu, a 48 KB half tile read by ldmatrix),
#     --pad-only swizzles the column index of every access, in units of the
#     widest access (1 float, 8 halfs for 16-byte ldmatrix rows and
#     cp.async copies, 4 floats for float4), says why it did not pad, and
#     analyze finds no conflict left; a second run changes nothing;
#   - --swizzle prefers the swizzle where padding works too (the transpose,
#     float4 rows of 64 bytes that need the row's bit 0 left out), and
#     without it the padding's note says what a swizzle would reach;
#   - every access of a swizzled array is rewritten (all_swizzled), and an
#     array some access of which a swizzle cannot follow (a macro, a branch
#     of #if, a row index that calls a function, a column index that reads
#     shared memory, rows of 33 elements, an index outside its row, wmma)
#     is padded or refused with the reason, never swizzled;
#   - with pipelining in both orders the stage index comes first:
#     As[2][r][c ^ ...] either way, for every variant but bulk, which
#     refuses a swizzled tile (and the pad pass an array bulk copies);
#   - template kernels: the budget and the row lengths of every
#     instantiation decide (templates.cu);
#   - --swizzle without --pad or --pad-only is a usage error.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir swizzle
cd "$root" || exit 1
export KPIPE_NO_PTXAS=1
d=tests/cli/swizzle
p=tests/cli/pad
has() { grep -q -- "$1" "$2"; }
hasnt() { ! grep -q -- "$1" "$2"; }
# every access NAME[..][r][c] of FILE (its declaration aside) has a `^` in
# its last index (or is the XOR term alone, for column 0), but where the
# row is a constant the swizzle leaves alone; at least MIN accesses
all_swizzled() { # FILE NAME MIN
	python3 - "$@" <<'PY'
import re, sys
src, name, least = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
src = re.sub(r"//[^\n]*|/\*.*?\*/", "", src, flags=re.S)
n = 0
for m in re.finditer(r"(?<![\w.])%s\s*\[" % re.escape(name), src):
    line = src[src.rfind("\n", 0, m.start()) + 1:src.find("\n", m.start())]
    if "__shared__" in line:
        continue
    groups, i = [], m.end() - 1
    while i < len(src) and src[i] == "[":
        depth, j = 0, i
        while True:
            depth += {"[": 1, "]": -1}.get(src[j], 0)
            if depth == 0:
                break
            j += 1
        groups.append(src[i + 1:j])
        i = j + 1
        while i < len(src) and src[i] in " \t":
            i += 1
    n += 1
    row, col = groups[-2].strip(), groups[-1]
    # c ^ term, the term alone (column 0), or a constant row left alone
    if "^" not in col and not (row in col and "&" in col) and not re.fullmatch(r"\d+", row):
        sys.exit("not swizzled: %s%s" % (name, "".join("[%s]" % g for g in groups)))
if n < least:
    sys.exit("%d accesses of %s, expected %d or more" % (n, name, least))
PY
}

# the 48 KB transpose tile: padding does not fit, the swizzle does
s=samples/transpose_wide_tile
"$kpipe" rewrite --pad-only "$s.cu" -o "$tmp/tw.cu" 2>"$tmp/tw.err"
check "wide tile: exit 0" test $? -eq 0
check "wide tile: the declaration as it was" has "__shared__ float tile\[TW_ROWS\]\[TW_COLS\];" "$tmp/tw.cu"
check "wide tile: the store swizzled" has "tile\[ty + j\]\[(tx + i) ^ ((ty + j) & 31)\] = in\[" "$tmp/tw.cu"
check "wide tile: the column read swizzled" has "= tile\[tx + i\]\[(ty + j) ^ ((tx + i) & 31)\];" "$tmp/tw.cu"
check "wide tile: every access" all_swizzled "$tmp/tw.cu" tile 2
diff "$s.cu" "$tmp/tw.cu" >"$tmp/tw.diff"
check "wide tile: only the two accesses change" test "$(grep -c '^>' "$tmp/tw.diff")" -eq 2
check "wide tile: the note, and why not padded" \
	has "note: \`tile\` swizzled: \`tile\[r\]\[c\]\` -> \`tile\[r\]\[c ^ (r & 31)\]\` in 2 accesses, units of 1 element permuted within each row: worst bank conflict 32-way -> 1-way (not padded: every padding of its rows that lowers its 32-way bank conflict takes the kernel's static shared memory over the 49152-byte limit of sm_90 (49664 bytes with 1 element more per row)) \[kpipe-swizzled\]" "$tmp/tw.err"
"$kpipe" analyze --spec "$s.launch.json" "$tmp/tw.cu" >"$tmp/tw.an" 2>/dev/null
check "wide tile: analyze reads the XOR and finds no conflict" \
	has "memory: block 32x8x1 from launch description; none of 2 shared accesses conflict" "$tmp/tw.an"
"$kpipe" rewrite --pad-only --spec "$s.launch.json" "$tmp/tw.cu" -o "$tmp/tw2.cu" 2>/dev/null
check "wide tile: a second run changes nothing" cmp -s "$tmp/tw.cu" "$tmp/tw2.cu"
"$kpipe" rewrite --pad-only --arch sm_80 "$s.cu" -o "$tmp/tw80.cu" 2>"$tmp/tw80.err"
check "wide tile: the limit is the target's" has "over the 49152-byte limit of sm_80" "$tmp/tw80.err"

# ldmatrix, cp.async and uint4 accesses of a 48 KB half tile: 16-byte units
"$kpipe" rewrite --pad-only "$d/ldmatrix.cu" -o "$tmp/l.cu" 2>"$tmp/l.err"
check "ldmatrix: the cp.async destination" \
	has "__pipeline_memcpy_async(&t\[r + tx / 8\]\[((tx % 8) \* 8) ^ (((r + tx / 8) & 7) << 3)\]," "$tmp/l.cu"
check "ldmatrix: a constant row gets a constant" has "	t\[5\]\[tx ^ 40\] = __float2half" "$tmp/l.cu"
check "ldmatrix: the row address" has "__cvta_generic_to_shared(&t\[tx % 16\]\[((tx / 16) \* 8) ^ (((tx % 16) & 7) << 3)\])" "$tmp/l.cu"
check "ldmatrix: the uint4 read" has "reinterpret_cast<const uint4 \*>(&t\[tx\]\[8 ^ ((tx & 7) << 3)\])" "$tmp/l.cu"
check "ldmatrix: every access" all_swizzled "$tmp/l.cu" t 4
check "ldmatrix: the note" has "\`t\` swizzled: \`t\[r\]\[c\]\` -> \`t\[r\]\[c ^ ((r & 7) << 3)\]\` in 4 accesses, units of 8 elements permuted within each row: worst bank conflict 8-way -> 1-way (not padded: .*55296 bytes with 8 elements more per row)) \[kpipe-swizzled\]" "$tmp/l.err"
"$kpipe" analyze "$tmp/l.cu" >"$tmp/l.an" 2>/dev/null
check "ldmatrix: no conflict left (the ldmatrix, the copies, the uint4 read)" \
	has "none of 4 shared accesses conflict, .* 0 not analysed" "$tmp/l.an"

# template kernels: the budget and the row lengths of every instantiation
"$kpipe" rewrite --pad-only --swizzle "$d/templates.cu" -o "$tmp/tp.cu" 2>"$tmp/tp.err"
check "templates: big swizzled (--swizzle)" \
	has "\`s\` swizzled: \`s\[r\]\[c\]\` -> \`s\[r\]\[c ^ (r & 31)\]\` in 2 accesses, .* 32-way -> 1-way \[kpipe-swizzled\]" "$tmp/tp.err"
check "templates: big's accesses" all_swizzled "$tmp/tp.cu" s 2
check "templates: tr padded: 16-float blocks (tr<48>) leave tr<32> 2-way" \
	has "\`t\` padded by 1 element per row (innermost bound \`W\` -> \`W + 1\`): worst bank conflict 32-way -> 1-way (not swizzled: the best swizzle leaves 2-way) \[kpipe-padded\]" "$tmp/tp.err"
"$kpipe" rewrite --pad-only "$d/templates.cu" -o "$tmp/tp0.cu" 2>"$tmp/tp0.err"
check "templates: without --swizzle, big swizzled for the budget of <96>" \
	has "\`s\` swizzled: .*(not padded: every padding of its rows that lowers its 32-way bank conflict takes the kernel's static shared memory over the 49152-byte limit of sm_90 (49536 bytes with 1 element more per row, for <96>)) \[kpipe-swizzled\]" "$tmp/tp0.err"
check "templates: tr padded" has "__shared__ float t\[32\]\[W + 1\];" "$tmp/tp0.cu"

# float4 rows of 64 bytes: padding works, --swizzle does better
"$kpipe" rewrite --pad-only "$d/vector.cu" -o "$tmp/v0.cu" 2>"$tmp/v0.err"
check "vector: padded without --swizzle" has "__shared__ __align__(16) float w\[64\]\[20\];" "$tmp/v0.cu"
check "vector: the note says what a swizzle would reach" \
	has "\`w\` padded by 4 elements per row (innermost bound \`16\` -> \`20\`): worst bank conflict 4-way -> 2-way (an XOR swizzle would reach 1-way: --swizzle) \[kpipe-padded\]" "$tmp/v0.err"
"$kpipe" rewrite --pad-only --swizzle "$d/vector.cu" -o "$tmp/v.cu" 2>"$tmp/v.err"
check "vector: --swizzle: the declaration as it was" has "__shared__ __align__(16) float w\[64\]\[16\];" "$tmp/v.cu"
check "vector: the row's bit 0 left out, units of 4 floats" \
	has "\`w\[r\]\[c\]\` -> \`w\[r\]\[c ^ (((r >> 1) & 3) << 2)\]\` in 3 accesses, units of 4 elements .* 4-way -> 1-way \[kpipe-swizzled\]" "$tmp/v.err"
check "vector: the float4 store" has "&w\[r + tx / 4\]\[((tx % 4) \* 4) ^ ((((r + tx / 4) >> 1) & 3) << 2)\]" "$tmp/v.cu"
check "vector: column 0 is the XOR term alone" has "&w\[tx\]\[((tx >> 1) & 3) << 2\]" "$tmp/v.cu"
check "vector: every access" all_swizzled "$tmp/v.cu" w 3
"$kpipe" analyze "$tmp/v.cu" >"$tmp/v.an" 2>/dev/null
check "vector: no conflict left" has "none of 3 shared accesses conflict" "$tmp/v.an"

# --swizzle on the transpose (padding works too): the swizzle, no memory
"$kpipe" rewrite --pad-only --swizzle "$p/transpose.cu" -o "$tmp/t.cu" 2>"$tmp/t.err"
check "transpose: --swizzle: the tile as declared" has "__shared__ float tile\[TILE\]\[TILE\];" "$tmp/t.cu"
check "transpose: both accesses" all_swizzled "$tmp/t.cu" tile 2
check "transpose: the column read" has "tile\[threadIdx.x\]\[(threadIdx.y + j) ^ (threadIdx.x & 31)\]" "$tmp/t.cu"
"$kpipe" analyze "$tmp/t.cu" >"$tmp/t.an" 2>/dev/null
check "transpose: no conflict left" hasnt "kpipe-bank-conflict" "$tmp/t.an"

# refusals: padded instead, or neither, with the reason; never swizzled
"$kpipe" rewrite --pad-only --swizzle --block 32 "$d/refusals.cu" -o "$tmp/r.cu" 2>"$tmp/r.err"
check "refusals: exit 0" test $? -eq 0
for x in "m1\` padded by 1 element .* (not swizzled: an access of it is written by a macro, line 18)" \
	"m2\` padded by 1 element .* (not swizzled: its name appears where kpipe sees no access of it (another variable of that name, a #if branch not compiled, a macro's body))" \
	"m3\` padded by 1 element .* (not swizzled: its row index \`pick(tx)\` calls a function (a swizzle writes it twice), line 28)" \
	"m4\` padded by 1 element .* (not swizzled: its column index \`sel\[tx\] % 2\` reads shared memory, line 34)"; do
	check "refusals: ${x%%\`*} padded, not swizzled" has "note: \`$x \[kpipe-padded\]" "$tmp/r.err"
done
check "refusals: m5 neither padded nor swizzled" \
	has "warning: \`m5\` is not padded: no padding of its rows that keeps 4-byte alignment lowers its 2-way bank conflict; nor swizzled: its rows of 33 elements hold no power-of-two block of at least two 1-element units for the XOR to permute \[kpipe-pad-refused\]" "$tmp/r.err"
check "refusals: m6 (an index outside its row) neither" \
	has "warning: \`m6\` is not padded (a 32-way bank conflict stays): an index reaches outside its row (the element of another row it names would change) (line 43) \[kpipe-pad-refused\]" "$tmp/r.err"
check "refusals: no XOR written" hasnt "\^" "$tmp/r.cu"
check "refusals: m5 and m6 as declared" has "m5\[64\]\[33\];" "$tmp/r.cu"
check "refusals: m6 as declared" has "m6\[32\]\[32\];" "$tmp/r.cu"
"$kpipe" rewrite --pad-only --swizzle --block 32 "$p/fragments.cu" -o "$tmp/f.cu" 2>"$tmp/f.err"
check "fragments: w8 (wmma) padded, not swizzled" \
	has "\`w8\` padded by 16 elements .* (not swizzled: a wmma load takes a pointer and a leading dimension, whose rows no swizzle of the column index reaches, line 23) \[kpipe-padded\]" "$tmp/f.err"
check "fragments: l1 (ldmatrix) swizzled under --swizzle" has "\`l1\` swizzled: .*(r & 7) << 3" "$tmp/f.err"
check "fragments: l1's row address" all_swizzled "$tmp/f.cu" l1 2

# pipelining in both orders
"$kpipe" rewrite --pad --swizzle --variant cp-async --stages 2 "$p/kloop.cu" -o "$tmp/k1.cu" 2>/dev/null
"$kpipe" rewrite --variant cp-async --stages 2 "$p/kloop.cu" -o "$tmp/kp.cu" 2>/dev/null
"$kpipe" rewrite --pad-only --swizzle "$tmp/kp.cu" -o "$tmp/k2.cu" 2>/dev/null
check "kloop: the stage index outermost" has "__shared__ float As\[2\]\[TILE\]\[TILE\];" "$tmp/k1.cu"
check "kloop: the refill's destination" has "&As\[kp_stage ^ 1\]\[tx\]\[ty ^ (tx & 31)\]" "$tmp/k1.cu"
check "kloop: every access" all_swizzled "$tmp/k1.cu" As 3
check "kloop: Bs (conflict-free) as it was" hasnt "Bs\[[^]]*\]\[[^]]*\]\[[^]]*\^" "$tmp/k1.cu"
check "kloop: pipelined, then swizzled: the same" cmp -s "$tmp/k1.cu" "$tmp/k2.cu"
"$kpipe" analyze "$tmp/k1.cu" >"$tmp/k1.an" 2>/dev/null
check "kloop: no conflict left" hasnt "kpipe-bank-conflict" "$tmp/k1.an"
m=samples/matmul_column_read
for v in cp-async register register-ca register-2bar; do
	"$kpipe" rewrite --pad --swizzle --variant $v "$m.cu" -o "$tmp/m1.$v.cu" 2>"$tmp/m1.$v.err"
	"$kpipe" rewrite --variant $v "$m.cu" -o "$tmp/mp.$v.cu" 2>/dev/null
	"$kpipe" rewrite --pad-only --swizzle --spec "$m.launch.json" "$tmp/mp.$v.cu" -o "$tmp/m2.$v.cu" 2>/dev/null
	check "$(basename $m) $v: swizzled and pipelined" has "\[kpipe-swizzled\]" "$tmp/m1.$v.err"
	check "$(basename $m) $v: every access" all_swizzled "$tmp/m1.$v.cu" As 3
	check "$(basename $m) $v: both orders the same" cmp -s "$tmp/m1.$v.cu" "$tmp/m2.$v.cu"
done
"$kpipe" rewrite --pad --swizzle --variant bulk --arch sm_90 "$m.cu" -o "$tmp/mb.cu" 2>"$tmp/mb.err"
check "bulk: a swizzled tile is no row copy" has "the copy does not store 'As\[threadIdx.y\]\[threadIdx.x\]'.*\[kpipe-bulk-unavailable\]" "$tmp/mb.err"
check "bulk: the tile swizzled all the same" all_swizzled "$tmp/mb.cu" As 2
"$kpipe" rewrite --variant bulk --arch sm_90 "$m.cu" -o "$tmp/mbp.cu" 2>/dev/null
"$kpipe" rewrite --pad-only --swizzle --arch sm_90 --spec "$m.launch.json" "$tmp/mbp.cu" -o "$tmp/mb2.cu" 2>"$tmp/mb2.err"
check "bulk first: the pad pass leaves the bulk tile alone" has "\`As\` is not padded .*\[kpipe-pad-refused\]" "$tmp/mb2.err"
check "bulk first: unchanged" cmp -s "$tmp/mbp.cu" "$tmp/mb2.cu"

# usage
"$kpipe" rewrite --swizzle "$p/transpose.cu" -o "$tmp/u.cu" 2>"$tmp/u.err"
check "--swizzle alone: a usage error" test $? -eq 2
check "--swizzle alone: the message" has "use it with --pad or --pad-only" "$tmp/u.err"

kp_summary
