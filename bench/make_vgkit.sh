#!/usr/bin/env bash
# make_vgkit.sh - packs what bench/device_valgrind.sh needs to run kpipe
# under valgrind on a machine whose ld.so is stripped (Ubuntu 24.04 without
# libc6-dbg): valgrind's memcheck, this machine's loader with its
# debugging symbols (libc6-dbg), and the C, C++ and compression libraries
# kpipe links to besides libclang/LLVM (those come from .debs/).  Writes
# OUT (default gpu-bin/vgkit/vgkit.tar.xz, about 12 MB).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/gpu-bin/vgkit/vgkit.tar.xz}"
for c in valgrind readelf; do
	command -v $c >/dev/null || { echo "make_vgkit.sh: $c is missing" >&2; exit 2; }
done
s=$(mktemp -d)
trap 'rm -rf "$s"' EXIT
mkdir -p "$s/core" "$s/valgrind/bin" "$s/valgrind/libexec/valgrind"
for l in libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1 libz.so.1 liblzma.so.5 libtinfo.so.6 \
	libzstd.so.1 libxml2.so.2 libicuuc.so.72 libicudata.so.72 libedit.so.2 libbsd.so.0 libmd.so.0 \
	libffi.so.8 libcjson.so.1 libz3.so.4; do
	cp -L "/lib/x86_64-linux-gnu/$l" "$s/core/$l"
done
cp -L /lib64/ld-linux-x86-64.so.2 "$s/core/"
id=$(readelf -n /lib64/ld-linux-x86-64.so.2 | awk '/Build ID/ { print $3 }')
dbg="/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
[ -f "$dbg" ] || { echo "make_vgkit.sh: no $dbg (install libc6-dbg)" >&2; exit 2; }
mkdir -p "$s/debug/.build-id/${id:0:2}"
cp "$dbg" "$s/debug/.build-id/${id:0:2}/"
vg="$(command -v valgrind)"
cp "$vg" "$(command -v valgrind-listener)" "$s/valgrind/bin/"
# Debian's valgrind is a shell script that starts valgrind.bin
[ -f "$vg.bin" ] && cp "$vg.bin" "$s/valgrind/bin/"
lib=/usr/libexec/valgrind
cp "$lib/memcheck-amd64-linux" "$lib/vgpreload_core-amd64-linux.so" \
	"$lib/vgpreload_memcheck-amd64-linux.so" "$lib/default.supp" "$s/valgrind/libexec/valgrind/"
mkdir -p "$(dirname "$out")"
tar cJf "$out" -C "$s" .
ls -l "$out"
