#!/usr/bin/env bash
# lsp.sh - `kpipe lsp` over its protocol (tests/cli/lsp_test.py with the
# client of tests/cli/lsp_client.py): diagnostics, code actions and their
# versioned edits against `kpipe rewrite`, stale actions, commands, headers,
# the lifecycle.  Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
kp_tmpdir lsp
timeout 300 python3 "$root/tests/cli/lsp_test.py" "$kpipe" "$tmp" "$root"
rc=$?
"$kpipe" lsp somefile.cu </dev/null >"$tmp/out" 2>"$tmp/err"
urc=$?
[ "$urc" -eq 2 ] && grep -q "takes no file" "$tmp/err" && [ ! -s "$tmp/out" ] ||
	{ echo "FAIL: kpipe lsp FILE: usage error (exit $urc)"; rc=1; }
exit "$rc"
