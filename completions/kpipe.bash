# kpipe.bash - bash completion for kpipe: commands, options, variant names,
# formats, targets, and files (.cu/.cuh where a source is expected).
# Installed as share/bash-completion/completions/kpipe; to try it from a
# checkout: source completions/kpipe.bash.  tests/cli/install.sh checks it
# against `kpipe --help`.

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

	local commands="analyze rewrite tune validate lsp version help"
	local variants="auto cp-async register register-ca register-2bar bulk tma"
	local archs="sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_103 sm_120 sm_121"
	local common="--arch --kernel --cuda-path -p --threads --spec --format --header-filter
		-I -D -U -v --verbose --extra-arg --help"
	local rewrite="-o --output -i --in-place --backup-suffix --diff --dry-run --variant --stages
		--assume-filename --export-fixes --validate --sizes --gpu-dir --sanitize --no-sanitize
		--out-dir -j --jobs --exclude --shard --no-pch --no-ptxas --Werror --timeout
		--no-comment --format-style --sarif-all --pad --pad-only --no-pad --swizzle --block
		--no-verify --require-verify"
	local analyze="--block -j --jobs --exclude"
	local tune="-o --output -i --in-place --sizes --gpu-dir --sanitize --no-sanitize --profile --variant"
	local validate="--sizes --gpu-dir --sanitize --no-sanitize --profile"

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
			mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
		fi
		return 0
	fi

	# --opt=VALUE is completed as --opt VALUE
	if [[ "$cur" == --*=* ]]; then
		prev="${cur%%=*}"
		cur="${cur#*=}"
	fi
	case "$prev" in
	--variant)
		mapfile -t COMPREPLY < <(compgen -W "$variants" -- "$cur")
		return 0
		;;
	--arch | --cuda-gpu-arch)
		mapfile -t COMPREPLY < <(compgen -W "$archs" -- "$cur")
		return 0
		;;
	--format)
		case "$cmd" in
		rewrite | analyze) mapfile -t COMPREPLY < <(compgen -W "text json sarif" -- "$cur") ;;
		*) mapfile -t COMPREPLY < <(compgen -W "text json" -- "$cur") ;;
		esac
		return 0
		;;
	--stages)
		mapfile -t COMPREPLY < <(compgen -W "2 3 4 5 6 7 8" -- "$cur")
		return 0
		;;
	--sizes)
		mapfile -t COMPREPLY < <(compgen -W "tiny small target" -- "$cur")
		return 0
		;;
	--cuda-path | -p | --out-dir | --gpu-dir | -I)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return 0
		;;
	--spec)
		mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$cur")
		mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur")
		return 0
		;;
	-o | --output | --export-fixes | --assume-filename)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
		;;
	--kernel | --threads | --block | --backup-suffix | -j | --jobs | --exclude | --shard | \
		--header-filter | --extra-arg | -D | -U)
		return 0 # a value kpipe cannot guess
		;;
	esac

	if [[ "$cur" == -* ]]; then
		local opts="$common"
		case "$cmd" in
		analyze) opts="$common $analyze" ;;
		rewrite) opts="$common $rewrite" ;;
		tune) opts="$common $tune" ;;
		validate) opts="$common $validate" ;;
		version | help) opts="" ;;
		esac
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
