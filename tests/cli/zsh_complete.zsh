# zsh_complete.zsh DIR LINE... - for tests/cli/install.sh: what zsh's
# completion lists when tab is pressed after each LINE, with the completion
# functions of DIR first in fpath; one "== LINE" block each (terminal escape
# sequences included).  Drives an interactive zsh through zpty.
zmodload zsh/zpty || exit 1
dir=$1
shift
zpty z 'zsh -f -i'
zpty -w z "fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D; PS1='> '; setopt nobeep; LISTMAX=10000; print RE''ADY"
# the output up to the first that holds $1 (at most about 50 s: a loaded
# machine, such as a ctest -j2 run, once took more than 8 s for a
# completion that asks kpipe)
until_seen() {
	local out= line
	local -i n=0
	while ((n++ < 2500)); do
		if zpty -r -t z line; then
			out+=$line
			[[ $out == *$1* ]] && break
		else
			sleep 0.02
		fi
	done
	print -r -- "$out"
}
until_seen READY >/dev/null
for l in "$@"; do
	zpty -w -n z "$l"$'\t'
	zpty -w z $'\C-u'"print DO''NE"
	print -r -- "== $l"
	until_seen DONE
done
zpty -d z
