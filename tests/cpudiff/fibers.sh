#!/usr/bin/env bash
# fibers.sh - CTest cpudiff.fibers: the emulator's two ways of switching
# threads (runtime/emu/kp_cpu_cuda.h, "Fiber switches"; docs/verify.md
# "Cost") give the same runs.  On x86-64 a switch is kp_emu_fiber_swap, no
# system call; KP_EMU_UCONTEXT=1 makes the same executables use
# swapcontext as before.  For wrong rewrites of tests/cpudiff/bad/ (barrier
# rings, cp.async, register staging, bulk copies and mbarriers, a deadlock)
# the checker's report (every setting, order and copy timing: MISMATCH with
# the elements that differ, ERROR with the deadlock or divergence found)
# must be the same text both ways (fault addresses aside), and the
# original against itself must pass both ways.  Where strace is installed, a run of the default way must
# make no rt_sigprocmask call (the switch is in use), and the ucontext way
# one per switch (the comparison compares two ways).
set -euo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
here="$root/tests/cpudiff"
if ! command -v g++ >/dev/null; then
	echo "SKIP: g++ not found"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# cpudiff.py keeps runs' results by executable and setting: each way gets
# a cache of its own, the second given the first's executables (the way is
# chosen when a run starts, not when it is built)
cache="$tmp/fast"
pass=0
fail=0
ok() {
	echo "ok   $1"
	pass=$((pass + 1))
}
bad() {
	echo "FAIL $1"
	fail=$((fail + 1))
}
for name in bulk_early_refill tma_coords persistent_outer macro_counter ne_condition name_collision while_copy guard_block; do
	dir="$here/bad/$name"
	for mode in fast ucontext; do
		env=(KP_EMU_UCONTEXT=0)
		c="$tmp/fast"
		if [ "$mode" = ucontext ]; then
			env=(KP_EMU_UCONTEXT=1)
			c="$tmp/uc.$name"
			mkdir -p "$c"
			cp -r "$tmp/fast"/h-*.exe "$tmp/fast"/pch-* "$c/"
		fi
		rc=0
		env "${env[@]}" python3 "$here/cpudiff.py" "$dir/kernel.cu" "$dir/kernel.cu" --cache "$c" -q \
			>"$tmp/self.$mode" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || bad "$name: the original against itself, $mode switches: exit $rc"
		rc=0
		env "${env[@]}" python3 "$here/cpudiff.py" "$dir/kernel.cu" "$dir/kernel.kpipe.cu" --cache "$c" \
			-q >"$tmp/out.$mode" 2>&1 || rc=$?
		echo "$rc" >"$tmp/rc.$mode"
		[ "$mode" = ucontext ] && rm -rf "$c"
	done
	if [ "$(cat "$tmp/rc.fast")" = 1 ] && grep -Eq ' (MISMATCH|ERROR) ' "$tmp/out.fast"; then
		ok "$name: caught with the fast switch ($(grep -Ec ' (MISMATCH|ERROR) ' "$tmp/out.fast") runs)"
	else
		bad "$name: not caught with the fast switch (exit $(cat "$tmp/rc.fast"))"
		sed 's/^/    /' "$tmp/out.fast" | head -5
	fi
	# a fault's address differs from run to run (ASLR): left out
	for mode in fast ucontext; do
		sed 's/0x[0-9a-f]\{8,\}/ADDR/g' "$tmp/out.$mode" >"$tmp/cmp.$mode"
	done
	if cmp -s "$tmp/cmp.fast" "$tmp/cmp.ucontext" && cmp -s "$tmp/rc.fast" "$tmp/rc.ucontext"; then
		ok "$name: the same report with swapcontext"
	else
		bad "$name: the reports differ between the two switches"
		diff "$tmp/cmp.fast" "$tmp/cmp.ucontext" | head -10 | sed 's/^/    /' || true
	fi
done

# the switch in use: no signal-mask system call per switch
if command -v strace >/dev/null && [ "$(uname -m)" = x86_64 ]; then
	# an executable cpudiff.py built and ran, and a size it ran
	run=$(find "$cache" -name 'r-*-fwd-0-wait.bin' 2>/dev/null | sort | head -1)
	exe=""
	if [ -n "$run" ]; then
		h=$(basename "$run" | cut -d- -f2)
		size=$(basename "$run" | cut -d- -f3)
		exe="$cache/h-$h.exe"
	fi
	if [ -n "$exe" ] && [ -x "$exe" ]; then
		n_fast=$(strace -f -e trace=rt_sigprocmask "$exe" --size "$size" --sched rev --seed 0 --cp wait \
			--out "$tmp/d1" 2>&1 >/dev/null | grep -c rt_sigprocmask || true)
		n_uc=$(KP_EMU_UCONTEXT=1 strace -f -e trace=rt_sigprocmask "$exe" --size "$size" --sched rev --seed 0 \
			--cp wait --out "$tmp/d2" 2>&1 >/dev/null | grep -c rt_sigprocmask || true)
		if [ "$n_fast" -lt 8 ] && [ "$n_uc" -gt 100 ]; then
			ok "a run makes $n_fast rt_sigprocmask calls with the fast switch, $n_uc with swapcontext"
		else
			bad "rt_sigprocmask calls: $n_fast fast, $n_uc with swapcontext ($exe)"
		fi
		if cmp -s "$tmp/d1" "$tmp/d2"; then ok "the same dump both ways"; else bad "the dumps differ"; fi
	else
		echo "note: no run found in $cache to trace"
	fi
else
	echo "note: no strace (or not x86-64): the switch in use is not traced"
fi
echo "cpudiff.fibers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
