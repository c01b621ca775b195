#!/usr/bin/env bash
# install.sh - `cmake --install` of the build under test into a temporary
# prefix: every file where GNUInstallDirs puts it; the installed binary runs
# without the checkout and rewrites the installed example as build/kpipe
# does; `man` finds the page through MANPATH; the bash, zsh and fish
# completions, which ask the installed kpipe (--list-options), offer the
# commands, the variant names (as kpipe lists them) and every option of
# `kpipe rewrite --help`; a fresh configure leaves -Werror off.  zsh and fish are driven when they
# are installed (a note, not a pass, otherwise).
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir install
build="${KPIPE_BUILD_DIR:-$root/build}"
p="$tmp/prefix"

cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1
check "cmake --install: exit 0" test $? -eq 0 || cat "$tmp/install.log"
for f in bin/kpipe share/man/man1/kpipe.1 share/bash-completion/completions/kpipe \
	share/zsh/site-functions/_kpipe share/fish/vendor_completions.d/kpipe.fish \
	share/doc/kpipe/README.md share/doc/kpipe/CHANGELOG.md share/doc/kpipe/LICENSE \
	share/doc/kpipe/diagnostics.md share/doc/kpipe/examples/matmul_32x32.cu \
	share/doc/kpipe/examples/matmul_32x32.launch.json share/cmake/kpipe/kpipeConfig.cmake \
	share/cmake/kpipe/kpipeConfigVersion.cmake share/cmake/kpipe/kpipeTargets.cmake \
	share/cmake/kpipe/kpipePipeline.cmake share/cmake/kpipe/kpipe_rewrite.cmake; do
	check "installed: $f" test -f "$p/$f"
done
check "installed: bin/kpipe is executable" test -x "$p/bin/kpipe"

# --- the installed binary, away from the checkout -----------------------------
cd "$tmp" || exit 1
env -u KPIPE_SOURCE_DIR "$p/bin/kpipe" --version >"$tmp/v" 2>&1
check "installed kpipe --version: exit 0" test $? -eq 0
"$kpipe" --version >"$tmp/v0" 2>&1
check "installed kpipe --version: the build's" cmp -s "$tmp/v" "$tmp/v0"
cp "$p/share/doc/kpipe/examples/matmul_32x32.cu" "$tmp/m.cu"
cp "$p/share/doc/kpipe/examples/matmul_32x32.launch.json" "$tmp/m.launch.json"
env -u KPIPE_SOURCE_DIR "$p/bin/kpipe" rewrite m.cu -o m.out.cu 2>"$tmp/err"
check "installed kpipe rewrites the example: exit 0" test $? -eq 0
check "installed kpipe rewrites the example: pipelined" grep -q 'kp_stage\|kp_reg' m.out.cu
"$kpipe" rewrite "$root/samples/matmul_32x32.cu" -o "$tmp/want.cu" 2>/dev/null
check "installed kpipe rewrites the example: as the build's kpipe does" cmp -s m.out.cu "$tmp/want.cu"

# --- a user's build: warnings are not errors unless asked (scripts/build.sh does)
cmake -S "$root" -B "$tmp/cfg" -DBUILD_TESTING=OFF >"$tmp/cfg.log" 2>&1
check "a user's configure: exit 0" test $? -eq 0
check "a user's configure: KPIPE_WERROR is OFF" grep -qx 'KPIPE_WERROR:BOOL=OFF' "$tmp/cfg/CMakeCache.txt"
check "a user's configure: no -Werror" sh -c "! grep -q -- -Werror '$tmp/cfg/compile_commands.json'"
cmake -S "$root" -B "$tmp/cfg" -DKPIPE_WERROR=ON >"$tmp/cfg.log" 2>&1
check "-DKPIPE_WERROR=ON: -Werror" grep -q -- -Werror "$tmp/cfg/compile_commands.json"
check "scripts/build.sh turns KPIPE_WERROR on" grep -q 'cmake_args=(-DKPIPE_WERROR=ON ' "$root/scripts/build.sh"

# --- the man page ------------------------------------------------------------------
if command -v man >/dev/null; then
	check "MANPATH=P/share/man man -w kpipe: the installed page" \
		test "$(MANPATH="$p/share/man" man -w kpipe 2>/dev/null)" = "$p/share/man/man1/kpipe.1"
	MANPATH="$p/share/man" MANPAGER=cat MANWIDTH=80 man kpipe >"$tmp/man" 2>/dev/null
	check "MANPATH=P/share/man man kpipe: renders the page" grep -q 'KPIPE(1)' "$tmp/man"
else
	echo "note: man is not installed: the MANPATH lookup was not checked"
fi

# --- completions ----------------------------------------------------------------
# they ask the kpipe on PATH (kpipe --list-options CMD): the installed one
PATH="$p/bin:$PATH"
export PATH
# what kpipe itself lists: commands, variants, long options
"$kpipe" --help >"$tmp/help" 2>&1
commands=$(awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$tmp/help" |
	tr '\n' ' ')
variants=$("$kpipe" rewrite --variant bogus "$tmp/m.cu" 2>&1 |
	sed -n "s/.*unknown variant 'bogus' (\(.*\))$/\1/p" | sed 's/,/ /g; s/ or / /')
# rewrite's options, from its own help; --check is git apply's (in an example),
# --opt the help's "--opt VALUE and --opt=VALUE both work"
"$kpipe" rewrite --help >"$tmp/rhelp" 2>&1
options=$(grep -o -- '--[a-z][a-z-]*' "$tmp/rhelp" | sort -u | grep -vx -e --check -e --opt | tr '\n' ' ')
check "kpipe --help lists the commands" test -n "$commands"
check "kpipe lists its variants" test -n "$variants"

# has WORDS FILE: every word of WORDS is a whole word of FILE
has() {
	local w missing=""
	for w in $1; do
		grep -qw -- "$w" "$2" || missing="$missing $w"
	done
	[ -z "$missing" ] || echo "  missing:$missing"
	[ -z "$missing" ]
}

# bash: the completion function on simulated command lines
bash_complete() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kpipe
		printf "%s\n" "${COMPREPLY[@]}"' _ "$p/share/bash-completion/completions/kpipe" "$@"
}
bash_complete kpipe "" >"$tmp/c"
check "bash: the commands" has "$commands" "$tmp/c"
bash_complete kpipe rewrite --variant "" >"$tmp/c"
check "bash: --variant offers kpipe's variants" has "$variants" "$tmp/c"
check "bash: --variant offers nothing else" test "$(wc -l <"$tmp/c")" -eq "$(echo "$variants" | wc -w)"
bash_complete kpipe rewrite --variant = reg >"$tmp/c"
check "bash: --variant=reg" test "$(sort "$tmp/c" | tr '\n' ' ')" = "register register-2bar register-ca "
bash_complete kpipe rewrite --format "" >"$tmp/c"
check "bash: rewrite --format: text json sarif" has "text json sarif" "$tmp/c"
bash_complete kpipe analyze --format "" >"$tmp/c"
check "bash: analyze --format: text json sarif" has "text json sarif" "$tmp/c"
bash_complete kpipe validate --format "" >"$tmp/c"
check "bash: validate --format: no sarif" bash -c "! grep -qw sarif \"\$1\"" _ "$tmp/c"
bash_complete kpipe rewrite - >"$tmp/c"
check "bash: rewrite offers every option of --help" has "$options" "$tmp/c"
(cd "$tmp" && bash_complete kpipe rewrite m >"$tmp/c")
check "bash: files" has "m.cu m.out.cu" "$tmp/c"

# zsh: an interactive zsh through zpty (tests/cli/zsh_complete.zsh)
if command -v zsh >/dev/null; then
	timeout 60 zsh -f "$root/tests/cli/zsh_complete.zsh" "$p/share/zsh/site-functions" \
		"kpipe " "kpipe rewrite --variant=" "kpipe rewrite --format=" "kpipe rewrite --" \
		"kpipe analyze --format=" \
		2>&1 | sed 's/\x1b\[[0-9;?]*[A-Za-z]/ /g' | tr -d '\r' >"$tmp/z"
	block() { awk -v b="== $1" '$0 == b { on = 1; next } /^== / { on = 0 } on' "$tmp/z" >"$tmp/c"; }
	block "kpipe "
	check "zsh: the commands" has "$commands" "$tmp/c"
	block "kpipe rewrite --variant="
	check "zsh: --variant offers kpipe's variants" has "$variants" "$tmp/c"
	block "kpipe rewrite --format="
	check "zsh: rewrite --format: text json sarif" has "text json sarif" "$tmp/c"
	block "kpipe rewrite --"
	check "zsh: rewrite offers every option of --help" has "$options" "$tmp/c"
	block "kpipe analyze --format="
	check "zsh: analyze --format: text json sarif" has "text json sarif" "$tmp/c"
else
	echo "note: zsh is not installed: its completion was not driven"
fi

# fish: complete -C
if command -v fish >/dev/null; then
	fish_complete() {
		# shellcheck disable=SC2016 # fish expands them
		fish --no-config -c 'source $argv[1]; complete -C $argv[2]' \
			"$p/share/fish/vendor_completions.d/kpipe.fish" "$1" | cut -f1
	}
	fish_complete "kpipe " >"$tmp/c"
	check "fish: the commands" has "$commands" "$tmp/c"
	fish_complete "kpipe rewrite --variant " >"$tmp/c"
	check "fish: --variant offers kpipe's variants" has "$variants" "$tmp/c"
	fish_complete "kpipe rewrite --format " >"$tmp/c"
	check "fish: rewrite --format: text json sarif" has "text json sarif" "$tmp/c"
	fish_complete "kpipe rewrite --" >"$tmp/c"
	check "fish: rewrite offers every option of --help" has "$options" "$tmp/c"
	fish_complete "kpipe analyze --format " >"$tmp/c"
	check "fish: analyze --format: text json sarif" has "text json sarif" "$tmp/c"
else
	echo "note: fish is not installed: its completion was not driven"
fi

kp_summary install
