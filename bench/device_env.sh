# device_env.sh - sourced, not run: makes a kpipe built on Debian 12 usable
# on a machine that lacks its libraries (the GPU machine).  When `kpipe
# --version` fails, the packages in .debs/ (bench/fetch_debs.sh) are
# unpacked into $KPIPE_DEBS_ROOT (default /tmp/kpipe-debs) and put on
# LD_LIBRARY_PATH; KPIPE_PARSE_ARGS then holds the arguments that point
# libclang at the unpacked builtin headers (give them to kpipe last: they
# start with --).  Nothing is installed system-wide.
#
#   source bench/device_env.sh build/kpipe
#   build/kpipe analyze samples/matmul_32x32.cu "${KPIPE_PARSE_ARGS[@]}"
kp_env_bin="${1:-build/kpipe}"
kp_env_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KPIPE_PARSE_ARGS=()
if ! "$kp_env_bin" --version >/dev/null 2>&1; then
	KPIPE_DEBS_ROOT="${KPIPE_DEBS_ROOT:-/tmp/kpipe-debs}"
	if ! ls "$kp_env_root"/.debs/*.deb >/dev/null 2>&1; then
		echo "device_env.sh: $kp_env_bin does not run and there is no .debs/ (bench/fetch_debs.sh)" >&2
		return 1
	fi
	mkdir -p "$KPIPE_DEBS_ROOT"
	for d in "$kp_env_root"/.debs/*.deb; do
		dpkg -x "$d" "$KPIPE_DEBS_ROOT"
	done
	export LD_LIBRARY_PATH="$KPIPE_DEBS_ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	res=$(ls -d "$KPIPE_DEBS_ROOT"/usr/lib/llvm-19/lib/clang/*/ 2>/dev/null | head -n 1)
	# exported, so that scripts run from this shell (which find kpipe
	# running and unpack nothing) still hand libclang its headers
	[ -n "$res" ] && export KPIPE_RESOURCE_DIR="${res%/}"
	if ! "$kp_env_bin" --version >/dev/null 2>&1; then
		echo "device_env.sh: $kp_env_bin still does not run:" >&2
		"$kp_env_bin" --version >&2
		return 1
	fi
fi
if [ -n "${KPIPE_RESOURCE_DIR:-}" ]; then
	KPIPE_PARSE_ARGS=(-- -resource-dir "$KPIPE_RESOURCE_DIR")
fi
return 0
