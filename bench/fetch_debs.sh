#!/usr/bin/env bash
# fetch_debs.sh - downloads into .debs/ the Debian 12 packages a kpipe built
# here needs to run on a machine without them (the GPU machine is Ubuntu
# 24.04 with libclang 16 only): libclang 19 with its builtin headers
# (libclang-common-19-dev: the CUDA wrapper headers libclang parses with),
# LLVM 19 and cJSON.  bench/device_env.sh unpacks them there.  .debs/ is
# not tracked (about 45 MB); pass it to the device with the tree.
#   bash bench/fetch_debs.sh --valgrind   valgrind 3.19 into .debs-vg/ instead
#                                         (14 MB; bench/device_valgrind.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = --valgrind ]; then
	mkdir -p "$root/.debs-vg"
	cd "$root/.debs-vg"
	apt-get download valgrind
	ls -l
	exit 0
fi
mkdir -p "$root/.debs"
cd "$root/.debs"
apt-get download libclang1-19 libclang-common-19-dev libllvm19 libcjson1 libz3-4 libedit2 \
	libbsd0 libmd0 libffi8
ls -l
