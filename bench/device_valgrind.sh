#!/usr/bin/env bash
# device_valgrind.sh - runs scripts/valgrind.sh on a machine with many cores
# that lacks valgrind and libclang 19 (the GPU machine: Ubuntu 24.04,
# libclang 16 only, nothing to download).  Carried with the tree:
#   .debs/      bench/fetch_debs.sh (libclang 19, LLVM 19, cJSON, ...)
#   .debs-vg/   bench/fetch_debs.sh --valgrind (valgrind 3.19)
#   BUILD       a plain kpipe build made here: kpipe and generated/
#               (scripts/valgrind.sh builds build-vg/; copy those two)
# The packages are unpacked into /usr without replacing any file that is
# already there (the machine is thrown away after the session), so kpipe
# finds libclang 19 and its builtin headers where it was built to, and the
# test outputs are the same as here.  Then:
#   bash scripts/valgrind.sh --build-dir BUILD --no-unit --out $OUT ARGS...
# (the unit tests need Criterion, which is not carried; they run here).
#
#   bash bench/device_valgrind.sh BUILD [valgrind.sh options...]
# Writes $OUT/valgrind-summary.txt, $OUT/device.txt (the machine) and
# $OUT/failed/ (the logs of failed suites).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:?usage: device_valgrind.sh BUILD [valgrind.sh options]}"
shift
out="${OUT:-$root/vg-out}"
mkdir -p "$out"
cd "$root" || exit 1

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "cpus: $(nproc)"
	grep -m1 'model name' /proc/cpuinfo
	grep PRETTY_NAME /etc/os-release
	free -g | sed -n 2p
} | tee "$out/device.txt"

if ! command -v valgrind >/dev/null 2>&1 || ! [ -e /usr/lib/x86_64-linux-gnu/libclang-19.so.19 ]; then
	stage=/tmp/kpipe-vg-stage
	mkdir -p "$stage"
	for d in .debs/*.deb .debs-vg/*.deb; do
		[ -f "$d" ] || { echo "device_valgrind.sh: no $d (bench/fetch_debs.sh)" >&2; exit 2; }
		dpkg -x "$d" "$stage" || exit 2
	done
	cp -rn "$stage/usr/." /usr/ || exit 2
	ldconfig
fi
valgrind --version | tee -a "$out/device.txt"
if ! valgrind -q --error-exitcode=99 /bin/true; then
	echo "device_valgrind.sh: valgrind does not run here" >&2
	exit 2
fi
"$build/kpipe" --version || exit 2
bash scripts/valgrind.sh --build-dir "$build" --no-unit --out "$out" "$@"
