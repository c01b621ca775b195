#!/usr/bin/env bash
# package.sh - the Debian package: `cpack -G DEB` from the build under test
# into a temporary directory; its control fields (name, version, the
# runtime Depends: libc6, libcjson1, libclang1-N and libclang-common-N-dev
# for clang's CUDA headers); its files; and, extracted with `dpkg -x` into
# a throwaway root, its kpipe rewrites its bundled example; apt-get -s
# resolves its Depends; with KPIPE_TEST_DPKG_INSTALL=1 (CI) it is
# installed with apt, run from /usr/bin and removed.  Needs cpack and dpkg-deb (SKIP without).
# Prints "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
for tool in cpack dpkg-deb; do
	command -v $tool >/dev/null || {
		echo "SKIP: $tool not found: the Debian package was not built"
		exit 77
	}
done
kp_tmpdir package
build="${KPIPE_BUILD_DIR:-$root/build}"

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1
check "cpack -G DEB: exit 0" test $? -eq 0 || cat "$tmp/cpack.log"
debs=("$tmp"/pkg/kpipe_*.deb)
check "cpack -G DEB: one kpipe_VERSION_ARCH.deb" test ${#debs[@]} -eq 1 -a -f "${debs[0]}"
deb="${debs[0]}"
version=$("$kpipe" --version | sed -n '1s/^kpipe \([^ ]*\) .*/\1/p')
check "the file is named after the version" test "$(basename "$deb")" = \
	"kpipe_${version}_$(dpkg --print-architecture 2>/dev/null || dpkg-deb -f "$deb" Architecture).deb"

# --- control -----------------------------------------------------------------------------
check "Package: kpipe" test "$(dpkg-deb -f "$deb" Package)" = kpipe
check "Version: kpipe's" test "$(dpkg-deb -f "$deb" Version)" = "$version"
check "Maintainer set" test -n "$(dpkg-deb -f "$deb" Maintainer)"
check "Description set" test -n "$(dpkg-deb -f "$deb" Description)"
depends=$(dpkg-deb -f "$deb" Depends)
major=$(ldd "$build/kpipe" 2>/dev/null | sed -n 's/.*libclang-\([0-9]*\)\.so.*/\1/p' | head -1)
check "libclang's major found in the binary" test -n "$major"
for pkg in libc6 libcjson1 "libclang1-$major" "libclang-common-$major-dev"; do
	check "Depends: $pkg" sh -c "echo '$depends' | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -qx '$pkg'"
done
check "no CUDA toolkit in Depends (suggested)" sh -c "! echo '$depends' | grep -q cuda"
check "Suggests: a CUDA toolkit" sh -c "dpkg-deb -f '$deb' Suggests | grep -q cuda-toolkit"

# --- files -----------------------------------------------------------------------------------
dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./||' >"$tmp/files"
for f in usr/bin/kpipe usr/share/man/man1/kpipe.1 usr/share/bash-completion/completions/kpipe \
	usr/share/zsh/site-functions/_kpipe usr/share/fish/vendor_completions.d/kpipe.fish \
	usr/share/doc/kpipe/LICENSE usr/share/doc/kpipe/examples/matmul_32x32.cu \
	usr/share/cmake/kpipe/kpipeConfig.cmake usr/share/cmake/kpipe/kpipePipeline.cmake; do
	check "in the package: /$f" grep -qx "$f" "$tmp/files"
done
check "nothing outside /usr" sh -c "! grep -v '^usr/' '$tmp/files' | grep -q ."

# --- extracted, not installed: its kpipe rewrites its example ---------------------------
r="$tmp/root"
dpkg-deb -x "$deb" "$r"
check "dpkg-deb -x: exit 0" test $? -eq 0
cd "$tmp" || exit 1
cp "$r/usr/share/doc/kpipe/examples/matmul_32x32.cu" "$r/usr/share/doc/kpipe/examples/matmul_32x32.launch.json" .
env -u KPIPE_SOURCE_DIR "$r/usr/bin/kpipe" --version >"$tmp/v" 2>&1
check "packaged kpipe --version: $version" grep -q "^kpipe $version (commit " "$tmp/v"
env -u KPIPE_SOURCE_DIR "$r/usr/bin/kpipe" rewrite matmul_32x32.cu -o out.cu 2>"$tmp/err"
check "packaged kpipe rewrites the example: exit 0" test $? -eq 0 || cat "$tmp/err"
check "packaged kpipe rewrites the example: pipelined" grep -q 'kp_stage\|kp_reg' out.cu
"$kpipe" rewrite "$root/samples/matmul_32x32.cu" -o "$tmp/want.cu" 2>/dev/null
check "packaged kpipe rewrites the example: as the build's kpipe does" cmp -s out.cu "$tmp/want.cu"

# --- apt resolves its Depends; installed for real on a throwaway machine ----------------
if command -v apt-get >/dev/null; then
	apt-get install -s "$deb" >"$tmp/apt-s" 2>&1
	check "apt-get install -s: the Depends resolve" grep -q '^Inst kpipe ' "$tmp/apt-s" ||
		tail -5 "$tmp/apt-s"
else
	echo "note: no apt-get: the Depends were not resolved"
fi
# KPIPE_TEST_DPKG_INSTALL=1 (.ci/run sets it: CI runs on a machine thrown
# away afterwards) installs the package with apt, runs the installed kpipe
# and man page, and removes it again.  Never on a machine that has a kpipe
# package already.
if [ "${KPIPE_TEST_DPKG_INSTALL:-0}" = 1 ] && [ "$(id -u)" = 0 ] &&
	! dpkg -s kpipe >/dev/null 2>&1; then
	trap 'dpkg -r kpipe >/dev/null 2>&1' EXIT
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" \
		>"$tmp/apt-i" 2>&1
	check "apt-get install ./kpipe.deb: exit 0" test $? -eq 0 || tail -5 "$tmp/apt-i"
	check "installed: dpkg -s kpipe" sh -c "dpkg -s kpipe | grep -q '^Status: install ok installed'"
	env -u KPIPE_SOURCE_DIR /usr/bin/kpipe rewrite matmul_32x32.cu -o installed.cu 2>"$tmp/err"
	check "installed /usr/bin/kpipe rewrites the example as the build's" cmp -s installed.cu "$tmp/want.cu" ||
		cat "$tmp/err"
	if command -v man >/dev/null; then
		check "installed: man -w kpipe finds the page" sh -c "man -w kpipe | grep -q '/usr/share/man/man1/kpipe.1'"
	fi
	dpkg -r kpipe >"$tmp/dpkg-r" 2>&1
	check "dpkg -r kpipe: exit 0, /usr/bin/kpipe gone" sh -c "test ! -e /usr/bin/kpipe"
	trap - EXIT
else
	echo "note: the package was not installed on this machine (KPIPE_TEST_DPKG_INSTALL=1, as root, with no kpipe package, does: .ci/run sets it)"
fi

kp_summary package
