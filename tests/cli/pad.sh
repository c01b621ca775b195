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
check "refusals: w7 padded to 32-byte rows" has "__shared__ float w7\[16\]\[40\];" "$tmp/r.cu"
check "refusals: w7's wmma ldm follows" has "load_matrix_sync(fc, &w7\[0\]\[0\], 40, " "$tmp/r.cu"
check "refusals: s9 (a scalar read through a cast) padded" has "__shared__ float s9\[32\]\[33\];" "$tmp/r.cu"

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
