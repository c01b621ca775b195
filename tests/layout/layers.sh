#!/usr/bin/env bash
# layers.sh - the architecture rules (tests/layout/check.py): layer folders,
# no include going up or round, libclang only in the frontend, transform
# names only in transforms/ (and the auto rule), no function over 150 lines.
set -uo pipefail
root="${KPIPE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
exec python3 "$root/tests/layout/check.py"
