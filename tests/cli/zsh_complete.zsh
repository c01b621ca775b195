# zsh_complete.zsh DIR LINE... - for tests/cli/install.sh and registry.sh:
# the matches zsh's completion offers when tab is pressed after each LINE,
# with the completion functions of DIR first in fpath; one "== LINE" block
# each, one match a line.  Drives an interactive zsh through zpty, one shell
# per LINE.  compadd is wrapped to print what it adds, and a marker line
# (not in the echo of what is typed) starts and ends a completion, so the result does not depend on
# when zle flushes its listing (typing the next key while a listing is being
# drawn cut it short on a loaded machine: cli.registry, CI of stop 41).
zmodload zsh/zpty || exit 1
dir=$1
shift

# the setup each shell runs before the tab; compadd calls that only store
# into arrays (-O, -A, -D) are left alone
setup=$(
	cat <<'EOF'
PS1='> '
bindkey '^I' complete-word
kp_mark() { print -r -- KP''-MARK }
compprefuncs=(kp_mark)
comppostfuncs=(kp_mark exit)
compadd() {
	if [[ " ${@[1,(i)(-|--)]} " == *\ -[OAD]\ * ]]; then
		builtin compadd "$@"
		return
	fi
	local -a kp_hits
	builtin compadd -A kp_hits "$@"
	local h
	for h in $kp_hits; do print -r -- $h; done
	builtin compadd "$@"
}
EOF
)

# the output between the two marker lines (at most about 50 s: a loaded
# machine, such as a ctest -j2 run, once took more than 8 s for a
# completion that asks kpipe)
until_done() {
	local out= line
	local -i n=0
	while ((n++ < 2500)); do
		if zpty -r -t z line; then
			out+=$line
			[[ $out == *KP-MARK*KP-MARK* ]] && break
		else
			sleep 0.02
		fi
	done
	out=${out#*KP-MARK}
	print -r -- "${out%%KP-MARK*}"
}

for l in "$@"; do
	zpty z 'zsh -f -i'
	zpty -w z "fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D"
	zpty -w z "$setup"
	zpty -w -n z "$l"$'\t'
	print -r -- "== $l"
	until_done
	zpty -d z
done
