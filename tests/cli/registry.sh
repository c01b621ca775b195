#!/usr/bin/env bash
# registry.sh - the variant names and the options are written in one place
# each (the transform registry, transforms/registry.c, and the option table
# of src/cli/cli.c with each command's list), and everything that shows them
# follows: for every command of `kpipe --list-commands` and every option of
# `kpipe --list-options CMD`, the option is in `kpipe CMD --help`, in the
# man page (docs/kpipe.1) and among what the bash, zsh and fish completions
# (completions/, run against this build) offer after `kpipe CMD -`; every
# variant of `kpipe --list-variants` is in the man page, README.md, `rewrite --help`
# and offered after --variant, and every build tune's help names (from the
# registry) in the man page; the completion scripts spell no variant
# name (they ask kpipe).  zsh and fish are driven when they are installed.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir registry
man="$root/docs/kpipe.1"
comp="$root/completions"
# the completions ask the kpipe on PATH: this build's
mkdir -p "$tmp/bin"
ln -s "$kpipe" "$tmp/bin/kpipe"
PATH="$tmp/bin:$PATH"
export PATH
cd "$tmp" || exit 1

# in_text WORD FILE: WORD (an option or a name) stands alone in FILE, not
# as part of a longer one (--pad is not found in --pad-only)
in_text() { grep -qP -- "(?<![\\w-])\\Q$1\\E(?![\\w]|-[\\w])" "$2"; }
# in_man WORD: as troff spells it (every - as \-)
in_man() { grep -qP -- "(?<![\\w\\\\-])\\Q${1//-/\\-}\\E(?![\\w]|\\\\-[\\w])" "$man"; }
# missing WORDS FILE: the WORDS FILE lacks, or nothing (one word a line)
missing() {
	local w out=""
	for w in $1; do
		grep -qx -- "$w" "$2" || out="$out $w"
	done
	echo "$out"
}

bash_complete() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kpipe
		printf "%s\n" "${COMPREPLY[@]}"' _ "$comp/kpipe.bash" "$@"
}

"$kpipe" --list-commands >"$tmp/commands"
check "--list-commands: exit 0" test $? -eq 0
"$kpipe" --list-variants >"$tmp/variants"
check "--list-variants: exit 0" test $? -eq 0
commands=$(cut -f1 "$tmp/commands")
variants=$(cat "$tmp/variants")
check "--list-variants: auto and the registry's (cp-async, tma)" \
	grep -qx -e auto -e cp-async -e tma "$tmp/variants"

# --- the variants ----------------------------------------------------------------
"$kpipe" rewrite --help >"$tmp/rhelp" 2>&1
for v in $variants; do
	check "variant $v: in rewrite --help" in_text "$v" "$tmp/rhelp"
	check "variant $v: in the man page" in_man "$v"
	check "variant $v: in README.md" in_text "$v" "$root/README.md"
done
for f in "$comp"/*; do
	for v in $variants; do
		[ "$v" = auto ] && continue
		if in_text "$v" "$f"; then
			bad "$(basename "$f") spells the variant $v (it must ask kpipe --list-variants)"
		else
			ok
		fi
	done
done
bash_complete kpipe rewrite --variant "" >"$tmp/c"
m=$(missing "$variants" "$tmp/c")
check "bash: rewrite --variant offers every variant${m:+ (missing:$m)}" test -z "$m"

# tune's builds, as its help lists them from the registry, in the man page
"$kpipe" tune --help >"$tmp/thelp" 2>&1
builds=$(tr '\n' ' ' <"$tmp/thelp" | sed -n 's/.*Builds \(.*\), each also with --pad.*/\1/p' |
	sed 's/,/ /g; s/ and / /')
check "tune --help lists its builds" test -n "$builds"
for b in $builds; do
	check "tune build $b: in the man page" in_man "$b"
done

# --- every command's options -----------------------------------------------------
for cmd in $commands; do
	"$kpipe" --list-options "$cmd" >"$tmp/opts"
	check "--list-options $cmd: exit 0" test $? -eq 0
	[ -s "$tmp/opts" ] || continue
	"$kpipe" "$cmd" --help >"$tmp/help" 2>&1
	names=$(cut -f1 "$tmp/opts" | grep -vx -e --help)
	spellings=$(cut -f1,2 "$tmp/opts" | tr '\t' '\n' | grep -vx -e -)
	for o in $names; do
		check "$cmd $o: in kpipe $cmd --help" in_text "$o" "$tmp/help"
		check "$cmd $o: in the man page" in_man "$o"
	done
	bash_complete kpipe "$cmd" - >"$tmp/c"
	m=$(missing "$spellings" "$tmp/c")
	check "bash: $cmd - offers every option${m:+ (missing:$m)}" test -z "$m"
	if grep -q '@variant\|{auto ' "$tmp/opts"; then
		bash_complete kpipe "$cmd" --variant "" >"$tmp/c"
		m=$(missing "$variants" "$tmp/c")
		check "bash: $cmd --variant offers every variant${m:+ (missing:$m)}" test -z "$m"
	fi
	long=$(echo "$spellings" | grep -- '^--')
	if command -v zsh >/dev/null; then
		timeout 60 zsh -f "$root/tests/cli/zsh_complete.zsh" "$comp" "kpipe $cmd --" 2>&1 |
			sed 's/\x1b\[[0-9;?]*[A-Za-z]/ /g' | tr -d '\r' | tr -s ' \t' '\n\n' >"$tmp/c"
		m=$(missing "$long" "$tmp/c")
		check "zsh: $cmd -- offers every long option${m:+ (missing:$m)}" test -z "$m"
	fi
	if command -v fish >/dev/null; then
		# shellcheck disable=SC2016 # fish expands them
		fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$comp/kpipe.fish" \
			"kpipe $cmd -" | cut -f1 >"$tmp/c"
		m=$(missing "$spellings" "$tmp/c")
		check "fish: $cmd - offers every option${m:+ (missing:$m)}" test -z "$m"
	fi
done
command -v zsh >/dev/null || echo "note: zsh is not installed: its completion was not driven"
command -v fish >/dev/null || echo "note: fish is not installed: its completion was not driven"

kp_summary registry
