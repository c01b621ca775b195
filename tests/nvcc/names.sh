#!/usr/bin/env bash
# names.sh - kpipe's generated identifiers never collide with the kernel's
# own (docs/design.md, "Generated names").  For each fixture
# tests/fixtures/cu/names_*.cu (a macro `kp_stage`, variables `kp_reg0`,
# `kp_reg1` and `kp_has_next` read by the kernel) and both variants:
#   - kpipe rewrites it (exit 0);
#   - nvcc compiles the rewrite for sm_80 and sm_90 (one run) with no
#     warning the original does not have (kpipe used to emit `int 3 = 0;` for the macro
#     and `kp_reg0 * ...` on its own staging array);
#   - the rewrite declares none of the fixture's names: each one is declared
#     (or #defined) exactly as often as in the original, so every use of it
#     still means the user's;
#   - `kpipe validate` passes its resource and SASS steps and, where a GPU
#     answers, its GPU step: the rewrite's output equals the original's
#     element by element (a shadowed `kp_has_next` compiled but was wrong);
#   - rewriting the output again changes nothing (kp_stage_N is recognised).
# Exit 77 (skipped) when nvcc is missing.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_find_nvcc
kp_tmpdir nvcc-names
# declarations of NAME outside comments: "#define NAME", "TYPE NAME =",
# "TYPE NAME[", "TYPE NAME;"
decls() { # file name
	sed 's|//.*||' "$1" | grep -cE "(#define[[:space:]]+$2\\b|[A-Za-z0-9_>][[:space:]]+$2[[:space:]]*(=|\\[|;))"
}
declare -A user=(
	[names_macro]="kp_stage"
	[names_vars]="kp_reg0 kp_has_next"
	[names_has_next]="kp_has_next"
	[names_two_loops]="kp_reg1"
)
for name in names_macro names_vars names_has_next names_two_loops; do
	src="$root/tests/fixtures/cu/$name.cu"
	for v in cp-async register; do
		out="$tmp/$name.$v.cu"
		"$kpipe" rewrite --variant "$v" "$src" -o "$out" 2>"$tmp/err"
		rc=$?
		if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
			bad "$name $v: rewrite rc=$rc: $(head -c 300 "$tmp/err")"
			continue
		fi
		kp_nvcc_check "$name $v" "$src" "$out"
		for u in ${user[$name]}; do
			a=$(decls "$src" "$u")
			b=$(decls "$out" "$u")
			if [ "$a" = 1 ] && [ "$b" = 1 ]; then ok; else
				bad "$name $v: '$u' is declared $a time(s) in the original, $b in the rewrite"
			fi
		done
		"$kpipe" validate "$src" "$out" --arch sm_90 --sizes tiny,small,even,empty >"$tmp/val" 2>&1
		vrc=$?
		if { [ $vrc -eq 0 ] || [ $vrc -eq 6 ]; } && grep -q "^step 1  resources  PASSED" "$tmp/val" &&
			grep -q "^step 2  sass       PASSED" "$tmp/val" &&
			grep -qE "^step 3  gpu-run    (PASSED|SKIPPED)" "$tmp/val"; then
			ok
		else
			bad "$name $v: validate failed (rc=$vrc):"
			sed 's/^/    /' "$tmp/val" | head -40
		fi
		"$kpipe" rewrite "$out" -o "$tmp/again.cu" 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 0 ] && cmp -s "$tmp/again.cu" "$out" && grep -q "kpipe-already-pipelined" "$tmp/err"; then
			ok
		else
			bad "$name $v: second rewrite rc=$rc: $(head -c 300 "$tmp/err")"
		fi
	done
done
kp_summary
