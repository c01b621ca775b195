#!/usr/bin/env bash
# device_valgrind.sh - runs scripts/valgrind.sh on a machine with many cores
# that lacks valgrind and libclang 19 (the GPU machine: Ubuntu 24.04,
# libclang 16 only, nothing to download).  Carried with the tree:
#   .debs/      bench/fetch_debs.sh (libclang 19, LLVM 19, cJSON, ...)
#   BUILD       a plain kpipe build made here: kpipe and generated/
#               (scripts/valgrind.sh builds build-vg/; copy those two)
#   KIT         bench/make_vgkit.sh's vgkit.tar.xz: valgrind (memcheck
#               only), and this machine's loader and C/C++ libraries with
#               the loader's debugging symbols
# The packages are unpacked into /usr without replacing any file that is
# already there (the machine is thrown away after the session), so kpipe
# finds libclang 19 and its builtin headers where it was built to, and the
# test outputs are the same as here.  Ubuntu's ld.so is stripped and its
# symbols (libc6-dbg) cannot be fetched there, so valgrind cannot start a
# program that uses it: kpipe runs under valgrind through the kit's Debian
# loader and C library instead (scripts/valgrind.sh --loader); the runs
# that are not under valgrind use the machine's own.  Then:
#   bash scripts/valgrind.sh --build-dir BUILD --no-unit --loader ... ARGS
# (the unit tests need Criterion, which is not carried; they run here).
#
#   bash bench/device_valgrind.sh BUILD KIT [valgrind.sh options...]
# With VG_SETUP_ONLY=1 it stops after the set-up (so that two runs with
# different --run-shards or suites can then start side by side, each with
# its own OUT, without unpacking the same files at once).
# Writes $OUT/valgrind-summary.txt, $OUT/device.txt (the machine) and
# $OUT/failed/ (the logs of failed suites).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:?usage: device_valgrind.sh BUILD KIT [valgrind.sh options]}"
kit="${2:?usage: device_valgrind.sh BUILD KIT [valgrind.sh options]}"
shift 2
out="${OUT:-$root/vg-out}"
mkdir -p "$out"
cd "$root" || exit 1

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: ${KPIPE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
	echo "cpus: $(nproc)"
	grep -m1 'model name' /proc/cpuinfo
	grep PRETTY_NAME /etc/os-release
	free -g | sed -n 2p
} | tee "$out/device.txt"

if ! [ -e /usr/lib/x86_64-linux-gnu/libclang-19.so.19 ]; then
	stage=/tmp/kpipe-vg-stage
	mkdir -p "$stage"
	for d in .debs/*.deb; do
		[ -f "$d" ] || { echo "device_valgrind.sh: no $d (bench/fetch_debs.sh)" >&2; exit 2; }
		dpkg -x "$d" "$stage" || exit 2
	done
	cp -rn "$stage/usr/." /usr/ || exit 2
	ldconfig
fi
k=/tmp/kpipe-vgkit
mkdir -p "$k"
tar xJf "$kit" -C "$k" || exit 2
mkdir -p /usr/lib/debug
cp -rn "$k/debug/." /usr/lib/debug/
export PATH="$k/valgrind/bin:$PATH" VALGRIND_LIB="$k/valgrind/libexec/valgrind"
valgrind --version | tee -a "$out/device.txt"
"$build/kpipe" --version || exit 2
if ! valgrind -q --error-exitcode=99 "$k/core/ld-linux-x86-64.so.2" --library-path "$k/core" \
	"$build/kpipe" --version; then
	echo "device_valgrind.sh: valgrind does not run kpipe here" >&2
	exit 2
fi
[ "${VG_SETUP_ONLY:-0}" = 1 ] && exit 0
bash scripts/valgrind.sh --build-dir "$build" --no-unit --loader "$k/core" --out "$out" "$@"
