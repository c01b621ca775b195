#!/usr/bin/env bash
# parse_coverage.sh - how much of a tree of CUDA code kpipe's front end
# parses: runs `kpipe analyze` on every .cu file under DIR (with -I for the
# file's own folder and for each INCLUDE_DIR given) and prints, per file,
# the exit code (0/1: parsed and analysed, 3: did not parse) and the first
# error, then the counts.  Keep the tree outside the repository.
#
#   bash bench/parse_coverage.sh DIR [KPIPE] [INCLUDE_DIR...]  > report.txt
set -uo pipefail
dir="${1:?usage: parse_coverage.sh DIR [KPIPE] [INCLUDE_DIR...]}"
kpipe="${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/kpipe}"
shift $(($# >= 2 ? 2 : 1))
inc=()
for d in "$@"; do inc+=(-I "$d"); done
err=$(mktemp)
trap 'rm -f "$err"' EXIT
parsed=0
failed=0
while IFS= read -r f; do
	rc=0
	timeout 120 "$kpipe" analyze "$f" -- "${inc[@]}" -I "$(dirname "$f")" >/dev/null 2>"$err" || rc=$?
	first=$(grep -m1 ': error: ' "$err" | sed -E 's/^.*: error: //' | cut -c1-160)
	echo "$rc ${f#"$dir"/} ${first}"
	if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
		parsed=$((parsed + 1))
	else
		failed=$((failed + 1))
	fi
done < <(find "$dir" -name '*.cu' | sort)
echo "parsed: $parsed of $((parsed + failed)) files; did not parse: $failed"
