#!/usr/bin/env bash
# format.sh - every C file of src/, transforms/ and tests/ is formatted as
# .clang-format says, by clang-format 19 (the version scripts/setup.sh
# installs: another version formats differently).  Prints the files that
# are not and how to fix them; exit 77 (skipped) when clang-format-19 is
# missing.
set -uo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cf="$(command -v clang-format-19 || true)"
if [ -z "$cf" ]; then
	echo "SKIP: clang-format-19 not found (scripts/setup.sh installs it)"
	exit 77
fi
cd "$root" || exit 1
bad=0
n=0
while IFS= read -r f; do
	n=$((n + 1))
	if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "not formatted: $f"
		bad=$((bad + 1))
	fi
done < <(find src transforms tests/unit tests/fuzz tests/nvcc -name '*.[ch]' | sort)
echo "$n files checked, $bad not formatted"
[ "$bad" -eq 0 ] || echo "fix: clang-format-19 -i FILE... (or git clang-format --binary clang-format-19 BASE)"
[ "$bad" -eq 0 ]
