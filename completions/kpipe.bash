# kpipe.bash - bash completion for kpipe: commands, options, variant names,
# formats, targets, and files (.cu/.cuh where a source is expected).
# Installed as share/bash-completion/completions/kpipe; to try it from a
# checkout: source completions/kpipe.bash.
# Nothing here is a copy: the commands, each command's options and the
# values they take (variant names, targets, formats) come from the kpipe
# being completed, through its hidden --list-commands and --list-options
# CMD (src/cli/main.c), as clang-tidy's completion asks --list-checks.
# tests/cli/install.sh and tests/cli/registry.sh check it.

# _kpipe_run KPIPE ARGS...: the kpipe named on the command line (a leading
# ~/ expanded; `kpipe` from PATH when that is not a program)
_kpipe_run()
{
	local kp="$1"
	shift
	case "$kp" in "~/"*) kp="$HOME/${kp#"~/"}" ;; esac
	if [[ "$kp" != */* ]] || [ ! -x "$kp" ]; then
		kp=kpipe
	fi
	"$kp" "$@" 2>/dev/null
}

_kpipe()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion -n = || return
	else
		cur="${COMP_WORDS[COMP_CWORD]}"
		prev="${COMP_WORDS[COMP_CWORD - 1]}"
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		# COMP_WORDBREAKS splits --opt=VALUE into --opt, =, VALUE
		if [ "$prev" = "=" ] && [ "$cword" -ge 2 ]; then
			prev="${COMP_WORDS[COMP_CWORD - 2]}"
		elif [ "$cur" = "=" ]; then
			prev="${COMP_WORDS[COMP_CWORD - 1]}"
			cur=""
		fi
	fi
	local kp="${words[0]}"

	# the command: the first word that is not an option
	local cmd="" i
	for ((i = 1; i < cword; i++)); do
		case "${words[i]}" in
		-*) ;;
		*)
			cmd="${words[i]}"
			break
			;;
		esac
	done
	if [ -z "$cmd" ]; then
		if [[ "$cur" == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W \
				"$(_kpipe_run "$kp" --list-commands | cut -f1)" -- "$cur")
		fi
		return 0
	fi

	# --opt=VALUE is completed as --opt VALUE
	if [[ "$cur" == --*=* ]]; then
		prev="${cur%%=*}"
		cur="${cur#*=}"
	fi
	# the command's options: NAME ALIAS VALUE SUMMARY, tab-separated
	local opts="" name alias value summary
	while IFS=$'\t' read -r name alias value summary; do
		opts="$opts $name"
		[ "$alias" = - ] || opts="$opts $alias"
		[ "$alias" = - ] && alias="$name"
		if [ "$value" != - ] && { [ "$prev" = "$name" ] || [ "$prev" = "$alias" ]; }; then
			value="${value%...}"
			case "$value" in
			"{"*)
				value="${value#\{}"
				mapfile -t COMPREPLY < <(compgen -W "${value%\}}" -- "$cur")
				;;
			dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
			file) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
			json)
				mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$cur")
				mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur")
				;;
			esac
			return 0 # text: a value kpipe cannot guess
		fi
	done < <(_kpipe_run "$kp" --list-options "$cmd")

	if [[ "$cur" == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return 0
	fi
	case "$cmd" in
	version | help) return 0 ;;
	esac
	# sources and directories (rewrite and analyze take directories too)
	mapfile -t COMPREPLY < <(compgen -f -X '!*.cu' -- "$cur")
	mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.cuh' -- "$cur")
	mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur")
	return 0
}
complete -o filenames -o bashdefault -F _kpipe kpipe
