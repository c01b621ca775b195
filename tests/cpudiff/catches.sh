#!/usr/bin/env bash
# catches.sh - CTest cpudiff.catches: the CPU checker must catch wrong
# rewrites.  Each tests/cpudiff/bad/NAME/ holds a kernel written for this
# test (kernel.cu, kernel.launch.json) and the wrong rewrite kpipe emitted
# for it (kernel.kpipe.cu, from `kpipe rewrite $(cat kpipe-args)`):
#   persistent_outer  K-loop inside a persistent outer loop, no barrier after
#                     the pipelined loop (cp-async)
#   smem_after_loop   compute reads a non-tile shared array that the code
#                     after the loop writes (cp-async)
#   macro_counter     the counter hidden in an index macro: the prefetch
#                     reloads the current tile (cp-async)
#   ne_condition      `k0 != K` with 3 stages: the guard of tile i+2 is true
#                     on the last iteration, reads past the buffers
#   alias_store       the compute stores into the next tile's global data
#                     through a copy of the pointer (cp-async)
#   step_in_name      a bump `pa += ss + s` whose `s` the compute changes:
#                     the text check found `s` inside `ss` (cp-async)
#   cond_side_effect  `k0 < K && it++ < 3` copied into three places: the
#                     loop stops early (cp-async)
#   countdown_unsigned  an unsigned count-down with 4 stages: `(k - 48) > 0u`
#                     wraps, the prefetch reads past the buffers
#   countdown_typedef the same with 3 stages and the counter a uint32_t: its
#                     signedness was read from the spelling "unsigned"
#   tile_pointer      a pointer to the tile taken before the loop stays on
#                     buffer 0 (cp-async)
#   name_collision    the user's `kp_has_next` shadowed by kpipe's (register)
#   guard_block       a block of copies under a condition on the counter, no
#                     else: the partial last tile kept an older tile (cp-async)
#   macro_step        the counter also advanced by a macro, NEXT(k0) ->
#                     (k0)++, whose `++` was not seen (cp-async)
#   while_copy        a copy in a while loop run twice per tile: one staging
#                     register for both executions (register)
#   copy_loop_count   a copy loop whose count depends on the counter: the
#                     partial last tile kept an older tile (cp-async)
#   bulk_early_refill bulk, 3 stages, without the __syncthreads() after the
#                     wait: a bulk copy or a guarded store overwrites a tile
#                     a slower warp still reads
#   bulk_guard_corner bulk with each guard tested at the tile's low corner:
#                     a partial edge tile is bulk-copied, past the buffers
#   tma_coords        tma with the box's row and column swapped in the
#                     tensor copy's coordinates
# For each: the original must PASS against itself, and the stored rewrite
# must FAIL (exit 1 with a MISMATCH or ERROR run; a skip is a failure of
# this test).  Then $KPIPE (the kpipe under test) is run with the same
# arguments: it must either refuse the loop (exit 0, the input unchanged; the
# ids are shown) or write a rewrite that PASSES the checker.  Emitting the
# stored wrong rewrite again, or any rewrite the checker fails, is a
# failure: this is the regression test of each wrong-code class.
set -euo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
kpipe="${KPIPE:-$root/build/kpipe}"
here="$root/tests/cpudiff"
if ! command -v g++ >/dev/null; then
	echo "SKIP: g++ not found"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for dir in "$here"/bad/*/; do
	name=$(basename "$dir")
	orig="$dir/kernel.cu"
	bad="$dir/kernel.kpipe.cu"
	rc=0
	python3 "$here/cpudiff.py" "$orig" "$orig" --cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" -q >"$tmp/self" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL $name: the original does not pass against itself (exit $rc)"
		sed 's/^/    /' "$tmp/self" | head -10
		fail=$((fail + 1))
		continue
	fi
	rc=0
	python3 "$here/cpudiff.py" "$orig" "$bad" --cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" -q >"$tmp/out" 2>&1 || rc=$?
	nbad=$(grep -Ec ' (MISMATCH|ERROR) ' "$tmp/out" || true)
	if [ "$rc" -eq 1 ] && [ "$nbad" -gt 0 ]; then
		echo "ok   $name: caught, $(grep -E '^cpudiff: FAIL' "$tmp/out" | sed 's/^cpudiff: FAIL: //')"
		grep -Em1 ' (MISMATCH|ERROR) ' "$tmp/out" | cut -c1-160
		pass=$((pass + 1))
	else
		echo "FAIL $name: the checker did not catch the wrong rewrite (exit $rc)"
		sed 's/^/    /' "$tmp/out" | head -10
		fail=$((fail + 1))
	fi
	if [ ! -x "$kpipe" ]; then
		echo "FAIL $name: no kpipe binary at $kpipe to check the fix"
		fail=$((fail + 1))
		continue
	fi
	read -r -a args <"$dir/kpipe-args"
	rm -f "$tmp/now.cu"
	rc=0
	"$kpipe" rewrite "${args[@]}" "$orig" -o "$tmp/now.cu" 2>"$tmp/now.err" || rc=$?
	if [ "$rc" -eq 0 ] && cmp -s "$tmp/now.cu" "$orig"; then
		echo "ok   $name: kpipe ${args[*]} now refuses: $(grep -o '\[kpipe-[a-z0-9-]*\]' "$tmp/now.err" | sort -u | tr '\n' ' ')"
		pass=$((pass + 1))
	elif [ "$rc" -ne 0 ]; then
		echo "FAIL $name: kpipe ${args[*]} exited $rc"
		sed 's/^/    /' "$tmp/now.err" | head -5
		fail=$((fail + 1))
	elif cmp -s "$tmp/now.cu" "$bad"; then
		echo "FAIL $name: kpipe ${args[*]} still emits the wrong rewrite"
		fail=$((fail + 1))
	else
		rc=0
		python3 "$here/cpudiff.py" "$orig" "$tmp/now.cu" --spec "$dir/kernel.launch.json" \
			--cache "${KPIPE_CPUDIFF_CACHE:-$tmp/cache}" -q >"$tmp/out" 2>&1 || rc=$?
		if [ "$rc" -eq 0 ]; then
			echo "ok   $name: kpipe ${args[*]} now writes a rewrite that passes ($(grep -o '[0-9]* runs of the rewrite match' "$tmp/out" || echo 'all runs match'))"
			pass=$((pass + 1))
		else
			echo "FAIL $name: kpipe ${args[*]} writes a rewrite the checker rejects (exit $rc)"
			sed 's/^/    /' "$tmp/out" | head -10
			fail=$((fail + 1))
		fi
	fi
done
echo "cpudiff.catches: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
