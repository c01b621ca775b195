#!/usr/bin/env bash
# package-vsix.sh - packages editors/vscode as a .vsix (a thin client of
# `kpipe lsp`): installs its one dependency (vscode-languageclient) in a
# temporary copy and runs `npx @vscode/vsce package`.  Needs node, npm and
# network access to the npm registry; it is not part of the test suite or
# CI.  Usage: scripts/package-vsix.sh [OUT_DIR]   (default: build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
for tool in node npm npx; do
	command -v "$tool" >/dev/null || {
		echo "package-vsix.sh: $tool not found (install Node.js and npm)" >&2
		exit 5
	}
done
work=$(mktemp -d "${TMPDIR:-/tmp}/kpipe-vsix.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$root/editors/vscode/." "$work/"
cp "$root/LICENSE" "$work/LICENSE"
cd "$work"
npm install --omit=dev --no-audit --no-fund
npx --yes @vscode/vsce package --out "$out/"
ls "$out"/*.vsix
