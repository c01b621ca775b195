#!/usr/bin/env bash
# public_eval.sh - bench/public_eval.py's manifest options on a made-up
# checkout (our own sample, no public code):
#   - --manifest reads another manifest (as bench/heldout_eval.tsv is read);
#   - {tree} in a manifest's arguments is the runner's checkout and
#     {tree:KEY} the folder of another --tree: with them the kernel's header
#     is found and the loop is rewritten, and the rows name file, line,
#     kernel and plan;
#   - a {tree:KEY} whose --tree is missing stops the run with a message
#     naming the key (exit 1), never a silent empty path;
#   - without the flag the same file is "file not analysed", so the
#     expansion is what makes the difference;
#   - with no --manifest the default manifest (bench/public_eval.tsv) is read;
#   - a loop rewritten after the canon pass is "rewritten: ... (load phase
#     canonicalized)".
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir public_eval
cd "$root" || exit 1
export KPIPE_NO_PTXAS=1
has() { grep -q -- "$1" "$2"; }

# the checkout: the sample with its K step taken from a header that only the
# manifest's include flags find (one through {tree}, one through {tree:inc})
mkdir -p "$tmp/proj/own" "$tmp/shared"
printf '#define KSTEP 32\n' >"$tmp/shared/kstep.h"
cp "$tmp/shared/kstep.h" "$tmp/proj/own/kstep.h"
sed -e 's/^#include <cuda_runtime.h>/#include <cuda_runtime.h>\n#include "kstep.h"/' \
	-e 's/k0 += 32/k0 += KSTEP/' samples/matmul_32x32.cu >"$tmp/proj/a.cu"
cp "$tmp/proj/a.cu" "$tmp/proj/b.cu"
check "the test kernel needs the header" has 'k0 += KSTEP' "$tmp/proj/a.cu"
printf '# test manifest\np|a.cu|-I{tree:inc}\np|b.cu|-I{tree}/own\n' >"$tmp/m.tsv"
printf 'p|a.cu|\n' >"$tmp/bare.tsv"

python3 bench/public_eval.py --kpipe "$kpipe" --manifest "$tmp/bare.tsv" \
	--tree p="$tmp/proj" >"$tmp/out0" 2>"$tmp/err0"
check "without the include flag the file is not analysed (the flags matter)" \
	has "file not analysed: " "$tmp/out0"

python3 bench/public_eval.py --kpipe "$kpipe" --manifest "$tmp/m.tsv" \
	--tree p="$tmp/proj" --tree inc="$tmp/shared" >"$tmp/out" 2>"$tmp/err"
check "--manifest with both trees exits 0" test $? -eq 0
check "{tree:inc} finds the shared header: a.cu rewritten" \
	has "$(printf 'p\ta.cu\t28\tmatmul_32x32\trewritten: ')" "$tmp/out"
check "{tree} is the checkout: b.cu rewritten" \
	has "$(printf 'p\tb.cu\t28\tmatmul_32x32\trewritten: ')" "$tmp/out"
check "the summary counts both" has "# 2 loops, 2 rewritten" "$tmp/err"

python3 bench/public_eval.py --kpipe "$kpipe" --manifest "$tmp/m.tsv" \
	--tree p="$tmp/proj" >"$tmp/out2" 2>"$tmp/err2"
check "a {tree:KEY} without its --tree exits 1" test $? -eq 1
check "... and names the missing key" has "needs --tree inc=DIR" "$tmp/err2"

# a loop the canon pass rewrites (analyze's "canon") counts as rewritten
cp samples/knn_dist_blocks.cu "$tmp/proj/c.cu"
printf 'p|c.cu|\n' >"$tmp/canon.tsv"
python3 bench/public_eval.py --kpipe "$kpipe" --manifest "$tmp/canon.tsv" \
	--tree p="$tmp/proj" >"$tmp/out4" 2>"$tmp/err4"
check "a loop the canon pass rewrites: rewritten (load phase canonicalized)" \
	has "$(printf 'p\tc.cu\t46\tknn_dist_blocks\trewritten: register (load phase canonicalized)')" \
	"$tmp/out4"

# a legal loop auto leaves alone (a kernel template nothing instantiates,
# tiles sized by its parameters) is counted apart, never as rewritten
cp tests/golden/cases/rewrite-template_tiles_uninstantiated/input.cu "$tmp/proj/d.cu"
printf 'p|d.cu|\n' >"$tmp/blind.tsv"
python3 bench/public_eval.py --kpipe "$kpipe" --manifest "$tmp/blind.tsv" \
	--tree p="$tmp/proj" >"$tmp/out5" 2>"$tmp/err5"
check "a loop auto leaves alone: left alone by auto" \
	has "$(printf 'p\td.cu\t15\ttpl_tiles\tleft alone by auto: kpipe-no-predicted-gain')" "$tmp/out5"
check "... counted apart in the summary" has "# 1 loops, 0 rewritten, 1 left alone by auto" "$tmp/err5"

python3 bench/public_eval.py --kpipe "$kpipe" >"$tmp/out3" 2>"$tmp/err3"
check "no --manifest: the default manifest, every key skipped" \
	has "flash.cu: no --tree fam=DIR, skipped" "$tmp/err3"
kp_summary public_eval
