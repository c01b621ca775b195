#!/usr/bin/env bash
# demo.sh - from a bare machine to kpipe at work on the sample kernel:
# installs what is missing, builds build/kpipe, analyses
# samples/matmul_32x32.cu and, once the rewrite command exists, shows the
# rewrite as a unified diff.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
sample=samples/matmul_32x32.cu

bash scripts/setup.sh
log="$(mktemp "${TMPDIR:-/tmp}/kpipe-demo.XXXXXX")"
trap 'rm -f "$log"' EXIT
echo "building build/kpipe ..."
bash scripts/build.sh >"$log" 2>&1 || {
	cat "$log" >&2
	echo "demo.sh: build failed" >&2
	exit 1
}

if [ ! -f "$sample" ]; then
	echo "demo.sh: $sample is missing" >&2
	exit 1
fi

# run CMD...: show and run a command; exit statuses 0 and 1 ("nothing to
# do") are both fine for a demo, anything else stops it.
run() {
	echo "\$ $*"
	local rc=0
	"$@" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "demo.sh: '$*' exited with status $rc" >&2
		exit "$rc"
	fi
}

run build/kpipe analyze "$sample"
if build/kpipe rewrite --help >/dev/null 2>&1; then
	echo
	run build/kpipe rewrite "$sample" --diff
fi
