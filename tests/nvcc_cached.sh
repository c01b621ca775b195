#!/usr/bin/env bash
# nvcc_cached.sh - nvcc for the tests, its results kept by content hash:
#
#   NVCC_REAL=/usr/local/cuda/bin/nvcc KPIPE_NVCC_CACHE=DIR \
#       bash tests/nvcc_cached.sh ARGS...      # as nvcc ARGS...
#
# The key is nvcc itself (its path, size and time), the arguments (the -o
# file as a placeholder) and the bytes of each input file and of the
# headers it includes with quotes from its own folder (and theirs in
# turn), not the inputs' paths: a rewrite byte for byte the same as one
# compiled before (the sanitizer build writes the plain build's outputs;
# several tests compile the same kernels) is not compiled again.  A hit
# gives back the -o file, stdout, stderr (the input's path put back in)
# and the exit status.  Runs nvcc as it is, uncached, for anything the key
# cannot cover: -I/-include/-isystem and other search paths, -odir/-keep/
# -M* and other extra outputs, no -o (the output's name then depends on
# the input's) or no input file.  tests/lib.sh's kp_find_nvcc
# uses it when KPIPE_NVCC_CACHE is set (tests/CMakeLists.txt: CI time).
set -uo pipefail
real="${NVCC_REAL:-/usr/local/cuda/bin/nvcc}"
cache="${KPIPE_NVCC_CACHE:-}"
bypass() { exec "$real" "$@"; }
[ -n "$cache" ] || bypass "$@"
command -v sha256sum >/dev/null || bypass "$@"

out=""
inputs=()
keyargs=()
prev=""
for a in "$@"; do
	if [ "$prev" = -o ]; then
		out="$a"
		keyargs+=("@OUT@")
		prev=""
		continue
	fi
	case "$a" in
	-o) prev=-o ;;
	-o*) bypass "$@" ;; # -ofoo, -odir
	-I* | -isystem* | -include* | --include-path* | -iquote* | --pre-include* | -L* | -l* | \
		--output-directory* | -keep* | --keep* | -save-temps* | --save-temps* | \
		-M* | --generate-dependencies* | --dependency-output* | -run | --run | -dryrun | --dryrun | \
		--options-file*)
		bypass "$@"
		;;
	-*) ;;
	*)
		# a file is an input (its bytes in the key); anything else an
		# option's value (arch=compute_90,code=sm_90)
		if [ -f "$a" ]; then
			inputs+=("$a")
			keyargs+=("@IN${#inputs[@]}@")
			continue
		fi
		;;
	esac
	[ "$prev" = -o ] || keyargs+=("$a")
done
if [ -z "$out" ] || [ "${#inputs[@]}" -eq 0 ]; then
	bypass "$@"
fi

# the quoted includes of FILE found beside it, and theirs in turn
headers_of() {
	local f="$1" dir name h
	dir=$(dirname "$f")
	while IFS= read -r name; do
		h="$dir/$name"
		[ -f "$h" ] || continue
		case " ${seen[*]-} " in *" $h "*) continue ;; esac
		seen+=("$h")
		headers_of "$h"
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
}
key=$({
	stat -L -c '%n %s %Y' "$real"
	printf '%s\0' "${keyargs[@]}"
	for f in "${inputs[@]}"; do
		seen=()
		headers_of "$f"
		printf '\0%s\0' "$(basename "$f")"
		cat "$f"
		for h in "${seen[@]}"; do
			printf '\0%s\0' "${h#"$(dirname "$f")"/}"
			cat "$h"
		done
	done
} | sha256sum)
key=${key%% *}
d="$cache/${key:0:2}/$key"
# the inputs' paths in the messages, as placeholders in the cache
subst_out() { # FILE: the placeholders back to this call's paths
	local i=0 f s
	s=$(cat "$1")
	for f in "${inputs[@]}"; do
		i=$((i + 1))
		s=${s//"@IN$i@"/$f}
	done
	[ -n "$s" ] && printf '%s\n' "$s"
}
if [ -f "$d/rc" ]; then
	[ -f "$d/out" ] && cp "$d/out" "$out"
	subst_out "$d/stdout"
	subst_out "$d/stderr" >&2
	exit "$(cat "$d/rc")"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kpipe-nvcc.XXXXXX") || bypass "$@"
trap 'rm -rf "$tmp"' EXIT
"$real" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout"
cat "$tmp/stderr" >&2
# a signal (a kill under load) is no property of the input: not kept
[ "$rc" -lt 128 ] || exit "$rc"
mkdir -p "$tmp/entry"
i=0
for f in "${inputs[@]}"; do
	i=$((i + 1))
	sed -i "s|$(printf '%s' "$f" | sed 's/[][\.*^$|]/\\&/g')|@IN$i@|g" "$tmp/stdout" "$tmp/stderr"
done
mv "$tmp/stdout" "$tmp/stderr" "$tmp/entry/"
[ -f "$out" ] && cp "$out" "$tmp/entry/out"
echo "$rc" >"$tmp/entry/rc"
mkdir -p "$(dirname "$d")"
# atomic: a concurrent call of the same key writes the same entry
mv -T "$tmp/entry" "$d" 2>/dev/null || true
exit "$rc"
