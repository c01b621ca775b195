#!/usr/bin/env bash
# pad.sh - bank conflicts, coalescing and the pad pass (issue #20) on the
# fixtures of tests/cli/pad/:
#   - analyze reports kpipe-bank-conflict (the colliding lanes, the bank,
#     the degree) and kpipe-uncoalesced (sectors against the ideal) in
#     text and JSON, with the block shape read from the file's launch;
#   - rewrite --pad-only pads the transpose tile to [TILE][TILE + 1] and
#     nothing else, after which analyze finds no conflict; --pad (pad, then
#     pipeline) does the same for a kernel without a K-loop;
#   - a K-loop padded then pipelined and pipelined then padded give the
#     same [2][TILE][TILE + 1] tile;
#   - every refusal reason leaves its array as written; a wmma leading
#     dimension spelled as the bound moves with it;
#   - wmma fragment loads and inline-asm ldmatrix (fragments.cu and
#     samples/wmma_column_conflict.cu) are read as ldmatrix phases, and
#     padded by the least that keeps wmma fragment pointers 32-byte and
#     ldmatrix rows 16-byte aligned, or refused with the reason;
#   - the pipeline pass's budget sees the padded tiles (dynamic shared
#     memory of 49408 bytes instead of 48 KB static);
#   - --block: a bad value is a usage error; no block shape is a remark.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir pad
cd "$root" || exit 1
export KPIPE_NO_PTXAS=1
d=tests/cli/pad
has() { grep -q -- "$1" "$2"; }
hasnt() { ! grep -q -- "$1" "$2"; }

# analyze: text and JSON
"$kpipe" analyze "$d/transpose.cu" >"$tmp/an" 2>"$tmp/an.err"
check "analyze: the column read is a 32-way conflict of lanes 0.. on bank 0" \
	has "transpose.cu:25:26: warning: \`tile\[threadIdx.x\]\[threadIdx.y + j\]\` (load of shared \`tile\`, 4 bytes per lane): lanes 0,1,2,3,4,5,6,7,... hit bank 0: 32-way bank conflict \[kpipe-bank-conflict\]" "$tmp/an"
check "analyze: the naive store is uncoalesced" \
	has "transpose.cu:11:3: warning: \`out\[x \* n + (y + j)\]\` (store through \`out\`, 4 bytes per lane): 32 sectors of 32 bytes per warp request, 4 would do \[kpipe-uncoalesced\]" "$tmp/an"
check "analyze: the block shape from the launch" has "block 32x8x1 from launch at line 32" "$tmp/an"
check "analyze: the coalesced load is quiet" hasnt "in\[(y + j) \* n + x\]\` (load" "$tmp/an"
"$kpipe" analyze --format json "$d/transpose.cu" >"$tmp/an.json" 2>/dev/null
check "analyze json: the finding with its degree, bank and lanes" python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))["files"][0]["kernels"]
m = k[1]["memory"]
f = [x for x in m["findings"] if x["id"] == "kpipe-bank-conflict"][0]
assert m["block"] == [32, 8, 1] and m["conflicted"] == 1, m
assert f["degree"] == 32 and f["bank"] == 0 and f["lanes"].startswith("0,1,2,") and f["array"] == "tile"
u = [x for x in k[0]["memory"]["findings"] if x["id"] == "kpipe-uncoalesced"][0]
assert u["sectors"] == 32 and u["ideal_sectors"] == 4 and u["store"]
' "$tmp/an.json"

# --pad-only and --pad on the transpose
"$kpipe" rewrite --pad-only "$d/transpose.cu" -o "$tmp/t.cu" 2>"$tmp/t.err"
check "pad-only: exit 0" test $? -eq 0
diff "$d/transpose.cu" "$tmp/t.cu" >"$tmp/t.diff"
check "pad-only: only the tile's bound changes" test "$(grep -c '^[<>]' "$tmp/t.diff")" -eq 2
check "pad-only: [TILE][TILE + 1]" has "__shared__ float tile\[TILE\]\[TILE + 1\];" "$tmp/t.cu"
check "pad-only: the note" has "note: \`tile\` padded by 1 element per row (innermost bound \`TILE\` -> \`TILE + 1\`): worst bank conflict 32-way -> 1-way \[kpipe-padded\]" "$tmp/t.err"
"$kpipe" analyze "$tmp/t.cu" >"$tmp/an2" 2>/dev/null
check "pad-only: no conflict left" hasnt "kpipe-bank-conflict" "$tmp/an2"
"$kpipe" rewrite --pad "$d/transpose.cu" -o "$tmp/t2.cu" 2>/dev/null
check "pad: a kernel without a K-loop padded all the same" cmp -s "$tmp/t.cu" "$tmp/t2.cu"

# a K-loop: pad then pipeline, pipeline then pad
"$kpipe" rewrite --pad --variant cp-async --stages 2 "$d/kloop.cu" -o "$tmp/k1.cu" 2>/dev/null
"$kpipe" rewrite --variant cp-async --stages 2 "$d/kloop.cu" -o "$tmp/p.cu" 2>/dev/null
"$kpipe" rewrite --pad-only "$tmp/p.cu" -o "$tmp/k2.cu" 2>/dev/null
check "kloop: padded and pipelined" has "__shared__ float As\[2\]\[TILE\]\[TILE + 1\];" "$tmp/k1.cu"
check "kloop: Bs (conflict-free) as it was" has "__shared__ float Bs\[2\]\[TILE\]\[TILE\];" "$tmp/k1.cu"
check "kloop: pipelined, then padded: the same" cmp -s "$tmp/k1.cu" "$tmp/k2.cu"

# refusals
"$kpipe" rewrite --pad-only --block 32 "$d/refusals.cu" -o "$tmp/r.cu" 2>"$tmp/r.err"
check "refusals: exit 0" test $? -eq 0
for x in "s1\` is not padded (a 32-way bank conflict stays): it is a 1-D array indexed by hand" \
	"dyn\` is not padded (a 32-way bank conflict stays): it is dynamic (extern) shared memory" \
	"s3\` is not padded (a 32-way bank conflict stays): it is passed whole to \`first\` (line 30)" \
	"s4\` is not padded (a 32-way bank conflict stays): it is reinterpreted as another type across rows (line 38)" \
	"s5\` is not padded (a 32-way bank conflict stays): pointer arithmetic across its rows (\`float \*p5 = &s5\[0\]\[0\]\`) (line 46)" \
	"s8\` is not padded (a 32-way bank conflict stays): its size is read with sizeof (line 55)" \
	"w6\` is not padded (a 4-way bank conflict stays): a wmma load reads it with a leading dimension \`ld\` not spelled as its bound \`16\` (line 68)" \
	"s10\` is not padded (a 32-way bank conflict stays): its innermost bound is not spelled in this file (a macro declares it)"; do
	check "refused: ${x%%\`*}" has "warning: \`$x.*\[kpipe-pad-refused\]" "$tmp/r.err"
done
diff "$d/refusals.cu" "$tmp/r.cu" >"$tmp/r.diff"
check "refusals: only w7 (and its ldm) and s9 change" test "$(grep -c '^>' "$tmp/r.diff")" -eq 3
check "refusals: w7 padded to 16-byte rows (its one fragment pointer stays 32-byte aligned)" has "__shared__ float w7\[16\]\[36\];" "$tmp/r.cu"
check "refusals: w7's wmma ldm follows" has "load_matrix_sync(fc, &w7\[0\]\[0\], 36, " "$tmp/r.cu"
check "refusals: no line number where the reason has none" hasnt "dynamic (extern) shared memory, whose layout kpipe does not own (line" "$tmp/r.err"
check "refusals: s9 (a scalar read through a cast) padded" has "__shared__ float s9\[32\]\[33\];" "$tmp/r.cu"

# wmma and ldmatrix (fragments.cu): ldmatrix phases, the padding that keeps
# fragment pointers 32-byte and ldmatrix rows 16-byte aligned
"$kpipe" analyze --block 32 "$d/fragments.cu" >"$tmp/fr" 2>/dev/null
check "fragments: a wmma load of 128-byte rows is an 8-way conflict" \
	has "fragments.cu:23:31: warning: \`w8\[r\]\[0\]\` (wmma load of a matrix_a 16x16 fragment from shared \`w8\`, rows 128 bytes apart read as 8 rows of 16 bytes per phase): lanes 0,1,2,3,4,5,6,7 hit bank 0: 8-way bank conflict \[kpipe-bank-conflict\]" "$tmp/fr"
check "fragments: 160-byte rows, 2-way" has "\`w9\[r\]\[0\]\` (wmma load .*rows 160 bytes apart.*: lanes 0,4 hit bank 0: 2-way" "$tmp/fr"
check "fragments: an ldmatrix.x4 at the asm statement" \
	has "fragments.cu:42:2: warning: \`l1\[threadIdx.x % 16\]\[(threadIdx.x / 16) \* 8\]\` (ldmatrix.x4 of shared \`l1\`, 8 rows of 16 bytes per phase): lanes 0,1,2,3,4,5,6,7 hit bank 0: 8-way bank conflict" "$tmp/fr"
"$kpipe" rewrite --pad-only --block 32 "$d/fragments.cu" -o "$tmp/f.cu" 2>"$tmp/f.err"
check "fragments: exit 0" test $? -eq 0
check "fragments: w8 by 16 halfs, not 8 (row 1 stays 32-byte aligned)" has "__shared__ __align__(32) half w8\[32\]\[80\];" "$tmp/f.cu"
check "fragments: w8's ldm follows" has "load_matrix_sync(fa, &w8\[r\]\[0\], 80);" "$tmp/f.cu"
check "fragments: the note" has "\`w8\` padded by 16 elements per row (innermost bound \`64\` -> \`80\`): worst bank conflict 8-way -> 2-way \[kpipe-padded\]" "$tmp/f.err"
check "fragments: w9 refused for the alignment of its fragment pointers" \
	has "warning: \`w9\` is not padded: no padding of its rows that keeps its wmma fragment pointers 32-byte aligned lowers its 2-way bank conflict (8 elements would move the wmma fragment pointer at line 25 off its 32-byte boundary); nor swizzled: a wmma load takes a pointer and a leading dimension, whose rows no swizzle of the column index reaches (line 25) \[kpipe-pad-refused\]" "$tmp/f.err"
check "fragments: the ldmatrix array l1 padded by 8 halfs" has "__shared__ __align__(128) half l1\[64\]\[72\];" "$tmp/f.cu"
check "fragments: l2, its byte offsets added by hand, refused" \
	has "\`l2\` is not padded (a 8-way bank conflict stays): an ldmatrix adds bytes by hand to the shared address of one of its elements (line 46) \[kpipe-pad-refused\]" "$tmp/f.err"
diff "$d/fragments.cu" "$tmp/f.cu" >"$tmp/f.diff"
check "fragments: only w8 (and its ldm) and l1 change" test "$(grep -c '^>' "$tmp/f.diff")" -eq 3
"$kpipe" analyze --block 32 "$tmp/f.cu" >"$tmp/fr2" 2>/dev/null
check "fragments: l1 conflict-free once padded" hasnt "\`l1\[" "$tmp/fr2"

# the sample: a wmma K-loop with unpadded [..][64] half tiles
s=samples/wmma_column_conflict.cu
"$kpipe" analyze "$s" >"$tmp/w" 2>/dev/null
check "wmma sample: both fragment loads 8-way" test "$(grep -c '8-way bank conflict \[kpipe-bank-conflict\]' "$tmp/w")" -eq 2
"$kpipe" rewrite --pad-only "$s" -o "$tmp/w1.cu" 2>"$tmp/w1.err"
check "wmma sample: As padded by 8 halfs" has "__shared__ __align__(32) half As\[WC_BM\]\[WC_BK + 8\];" "$tmp/w1.cu"
check "wmma sample: Bs padded by 8 halfs" has "__shared__ __align__(32) half Bs\[WC_BK\]\[WC_BN + 8\];" "$tmp/w1.cu"
check "wmma sample: the leading dimensions follow" test "$(grep -cE '^ +WC_B[KN] \+ 8\);$' "$tmp/w1.cu")" -eq 2
check "wmma sample: 8-way -> 1-way" test "$(grep -c 'worst bank conflict 8-way -> 1-way \[kpipe-padded\]' "$tmp/w1.err")" -eq 2
"$kpipe" analyze "$tmp/w1.cu" --spec "${s%.cu}.launch.json" >"$tmp/w2" 2>/dev/null
check "wmma sample padded: the summary says none" has "memory: block 128x1x1 from launch description; none of 4 shared accesses conflict" "$tmp/w2"
"$kpipe" rewrite --pad --variant cp-async "$s" -o "$tmp/w3.cu" 2>/dev/null
check "wmma sample: --pad pads and pipelines" has "__shared__ __align__(32) half As\[2\]\[WC_BM\]\[WC_BK + 8\];" "$tmp/w3.cu"
"$kpipe" rewrite --variant cp-async "$s" -o "$tmp/w4.cu" 2>/dev/null
"$kpipe" rewrite --pad-only "$tmp/w4.cu" --spec "${s%.cu}.launch.json" -o "$tmp/w5.cu" 2>/dev/null
check "wmma sample: pipelined, then padded: the same" cmp -s "$tmp/w3.cu" "$tmp/w5.cu"

# the budget sees the padding
"$kpipe" rewrite -v --variant cp-async --stages 2 "$d/budget.cu" -o "$tmp/b0.cu" 2>"$tmp/b0.err"
"$kpipe" rewrite -v --pad --variant cp-async --stages 2 "$d/budget.cu" -o "$tmp/b1.cu" 2>"$tmp/b1.err"
check "budget: 48 KB fit static unpadded" hasnt "dynamic shared memory" "$tmp/b0.err"
check "budget: padded, 49408 bytes go dynamic" has "the tiles moved to dynamic shared memory (49408 B per block)" "$tmp/b1.err"

# --block
"$kpipe" analyze --block 32,64 "$d/transpose.cu" >"$tmp/o" 2>"$tmp/e"
check "--block over 1024 threads: usage error" test $? -eq 2
check "--block: the message" has "--block" "$tmp/e"
"$kpipe" analyze --block 8,4 --format json "$d/transpose.cu" >"$tmp/o" 2>/dev/null
check "--block given wins over the launch" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["files"][0]["kernels"][0]["memory"]
assert m["block"] == [8, 4, 1] and m["block_from"] == "--block", m' "$tmp/o"
grep -v "<<<" "$d/transpose.cu" >"$tmp/nolaunch.cu"
"$kpipe" rewrite --pad-only "$tmp/nolaunch.cu" -o "$tmp/n.cu" 2>"$tmp/n.err"
check "no block shape: a remark, nothing changed" has "remark: kernel \`transposeShared\` is not padded: no block shape known (give --block X,Y,Z) \[kpipe-pad-refused\]" "$tmp/n.err"
check "no block shape: the text unchanged" cmp -s "$tmp/nolaunch.cu" "$tmp/n.cu"

kp_summary
