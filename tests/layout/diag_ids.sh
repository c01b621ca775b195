#!/usr/bin/env bash
# diag_ids.sh - the registry of diagnostic ids (src/base/diag_ids.c) is the
# one list: every `"kpipe-NAME"` literal in src/ and transforms/ is
# registered, every registered id has its section `## kpipe-NAME` in
# docs/diagnostics.md, and the table of ids there is what
# `kpipe help diagnostics` prints from the registry, row for row.
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$root" || exit 1
kp_tmpdir diag_ids
"$kpipe" help diagnostics >"$tmp/table" || {
	echo "FAIL: kpipe help diagnostics exited $?"
	exit 1
}
registered=$(sed -n 's/^| \[`\(kpipe-[a-z0-9-]*\)`\].*/\1/p' "$tmp/table" | sort -u)
used=$(grep -rhoE '"kpipe-[a-z0-9-]+"' src transforms --include='*.c' --include='*.h' | tr -d '"' | sort -u)
unregistered=$(comm -23 <(echo "$used") <(echo "$registered") | tr '\n' ' ')
check "every id used in src/ and transforms/ is registered (${unregistered:-none missing})" test -z "$unregistered"
undocumented=""
for id in $registered; do
	grep -qx "## $id" docs/diagnostics.md || undocumented="$undocumented $id"
done
check "every registered id has a section in docs/diagnostics.md (${undocumented:-none missing})" test -z "$undocumented"
awk '/^## Ids$/ {on = 1; next} on && /^## / {exit} on && /^\|/' docs/diagnostics.md >"$tmp/doc_table"
check "docs/diagnostics.md's table of ids is the registry's (kpipe help diagnostics)" diff -u "$tmp/doc_table" "$tmp/table"
kp_summary diag_ids
