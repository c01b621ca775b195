#!/usr/bin/env bash
# build.sh - configure and build kpipe with CMake.
#
#   bash scripts/build.sh            # build/       (RelWithDebInfo)
#   bash scripts/build.sh --asan     # build-asan/  (Debug -O1, ASan+UBSan)
#   bash scripts/build.sh --clean    # wipe the build directory first
#   bash scripts/build.sh -- -DKPIPE_WERROR=OFF   # extra CMake arguments
#
# Warnings are errors here (KPIPE_WERROR=ON: the tests and CI build through
# this script); a plain `cmake -S . -B build` leaves them warnings for users.
# JOBS (default: the number of cores) sets the parallel build width.
# It does not install dependencies: scripts/setup.sh does.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir=build
clean=0
cmake_args=(-DKPIPE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
while [ $# -gt 0 ]; do
	case "$1" in
	--asan | --sanitize)
		dir=build-asan
		cmake_args=(-DKPIPE_WERROR=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DKPIPE_SANITIZE=ON)
		;;
	--clean) clean=1 ;;
	-h | --help)
		sed -n '2,14s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	--)
		shift
		cmake_args+=("$@")
		break
		;;
	*)
		echo "build.sh: unknown option '$1' (see --help)" >&2
		exit 2
		;;
	esac
	shift
done

jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
cd "$root"
if [ "$clean" = 1 ]; then
	rm -rf "$dir"
fi
cmake -S . -B "$dir" "${cmake_args[@]}" >"$dir.configure.log" 2>&1 || {
	cat "$dir.configure.log" >&2
	echo "build.sh: configure failed (missing dependencies? run: bash scripts/setup.sh)" >&2
	exit 1
}
# Show CMake's warnings (each a paragraph), nothing else of the configure step.
awk '/^CMake Warning/ { p = 1 } p { print } /^$/ { p = 0 }' "$dir.configure.log" >&2
rm -f "$dir.configure.log"
cmake --build "$dir" -j "$jobs"
